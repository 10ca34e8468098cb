/* host/napps/elfcheck.c - vet a NApp file before dlopen runs any of its code
 * (constructors run inside dlopen).  Reads the ELF headers and the dynamic
 * symbol table with bounds checks on every offset, finds the exported
 * kytos_napp_desc, and reads its leading plain fields (magic, ABI major and
 * minimum minor, size) straight from the file: they need no relocation. */
#include "napps/napp.h"
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILE (256L << 20)

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#elif defined(__i386__)
#define HOST_MACHINE EM_386
#elif defined(__arm__)
#define HOST_MACHINE EM_ARM
#elif defined(__riscv)
#define HOST_MACHINE EM_RISCV
#elif defined(__powerpc64__)
#define HOST_MACHINE EM_PPC64
#elif defined(__s390x__)
#define HOST_MACHINE EM_S390
#else
#define HOST_MACHINE EM_NONE
#endif

#if __SIZEOF_POINTER__ == 8
typedef Elf64_Ehdr Ehdr;
typedef Elf64_Shdr Shdr;
typedef Elf64_Sym Sym;
#define ELF_ST_TYPE ELF64_ST_TYPE
#define HOST_CLASS ELFCLASS64
#else
typedef Elf32_Ehdr Ehdr;
typedef Elf32_Shdr Shdr;
typedef Elf32_Sym Sym;
#define ELF_ST_TYPE ELF32_ST_TYPE
#define HOST_CLASS ELFCLASS32
#endif

static int read_at(int fd, off_t size, void *buf, size_t len, uint64_t off)
{
    if (off > (uint64_t)size || len > (uint64_t)size - off)
        return -1;
    return pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

int kh_elf_check(const char *path, char *err, size_t errlen)
{
    int fd = -1, rc = -1;
    struct stat st;
    Ehdr eh;
    Shdr *sh = NULL;
    char *strtab = NULL;
    size_t i;
    struct { uint32_t magic; uint16_t major, minor; uint32_t size; } head;

    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "not a regular readable file");
        goto out;
    }
    if (st.st_size > MAX_FILE) {
        snprintf(err, errlen, "larger than %ld bytes", MAX_FILE);
        goto out;
    }
    if (read_at(fd, st.st_size, &eh, sizeof eh, 0) != 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
        snprintf(err, errlen, "not a NApp: not an ELF file");
        goto out;
    }
    if (eh.e_ident[EI_CLASS] != HOST_CLASS || eh.e_machine != HOST_MACHINE) {
        snprintf(err, errlen, "not a NApp for this machine: ELF class %d machine %d, expected class %d machine %d",
                 eh.e_ident[EI_CLASS], eh.e_machine, HOST_CLASS, HOST_MACHINE);
        goto out;
    }
    if (eh.e_type != ET_DYN) {
        snprintf(err, errlen, "not a NApp: not a shared object (ELF type %d)", eh.e_type);
        goto out;
    }
    if (eh.e_shentsize != sizeof(Shdr) || eh.e_shnum == 0 || eh.e_shnum > 4096) {
        snprintf(err, errlen, "not a NApp: bad section header table");
        goto out;
    }
    sh = calloc(eh.e_shnum, sizeof *sh);
    if (!sh || read_at(fd, st.st_size, sh, (size_t)eh.e_shnum * sizeof *sh, eh.e_shoff) != 0) {
        snprintf(err, errlen, "not a NApp: truncated section header table");
        goto out;
    }
    for (i = 0; i < eh.e_shnum; i++) {
        Shdr *sym_sh = &sh[i], *str_sh;
        size_t nsyms, k;

        if (sym_sh->sh_type != SHT_DYNSYM)
            continue;
        if (sym_sh->sh_link >= eh.e_shnum || sym_sh->sh_entsize != sizeof(Sym)) {
            snprintf(err, errlen, "not a NApp: bad dynamic symbol table");
            goto out;
        }
        str_sh = &sh[sym_sh->sh_link];
        if (str_sh->sh_size == 0 || str_sh->sh_size > (16u << 20)) {
            snprintf(err, errlen, "not a NApp: bad dynamic string table");
            goto out;
        }
        strtab = malloc(str_sh->sh_size + 1);
        if (!strtab || read_at(fd, st.st_size, strtab, str_sh->sh_size, str_sh->sh_offset) != 0) {
            snprintf(err, errlen, "not a NApp: truncated dynamic string table");
            goto out;
        }
        strtab[str_sh->sh_size] = '\0';
        nsyms = sym_sh->sh_size / sizeof(Sym);
        if (nsyms > 1000000) {
            snprintf(err, errlen, "not a NApp: too many symbols");
            goto out;
        }
        for (k = 0; k < nsyms; k++) {
            Sym sym;
            Shdr *home;
            if (read_at(fd, st.st_size, &sym, sizeof sym, sym_sh->sh_offset + k * sizeof sym) != 0)
                break;
            if (sym.st_name >= str_sh->sh_size || strcmp(strtab + sym.st_name, "kytos_napp_desc") != 0)
                continue;
            if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= eh.e_shnum ||
                ELF_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_size < 12) {
                snprintf(err, errlen, "not a NApp: kytos_napp_desc is not a defined data symbol");
                goto out;
            }
            home = &sh[sym.st_shndx];
            if (home->sh_type == SHT_NOBITS || sym.st_value < home->sh_addr ||
                sym.st_value - home->sh_addr + 12 > home->sh_size ||
                read_at(fd, st.st_size, &head, sizeof head,
                        home->sh_offset + (sym.st_value - home->sh_addr)) != 0) {
                snprintf(err, errlen, "not a NApp: kytos_napp_desc lies outside its section");
                goto out;
            }
            if (head.magic != KYTOS_NAPP_MAGIC) {
                snprintf(err, errlen, "not a NApp: descriptor magic 0x%08x, expected 0x%08x", head.magic,
                         KYTOS_NAPP_MAGIC);
                goto out;
            }
            /* head.minor: the NApp's minimum minor (napps/descriptor.c) */
            if (kh_abi_check(head.major, head.minor, err, errlen) != KYTOS_OK)
                goto out;
            rc = 0;
            goto out;
        }
        snprintf(err, errlen, "not a NApp: no exported kytos_napp_desc symbol");
        goto out;
    }
    snprintf(err, errlen, "not a NApp: no dynamic symbol table");
out:
    free(sh);
    free(strtab);
    if (fd >= 0)
        close(fd);
    return rc;
}
