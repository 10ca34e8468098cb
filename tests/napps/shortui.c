/* tests/napps/shortui.c - a NApp whose kytos_napp_ui symbol is 8 bytes
 * (magic and a struct_size claiming the whole table): reading the table
 * would read past the symbol, so the host must refuse the NApp, naming the
 * symbol's size, before its init runs. */
#include <kytos/kytos.h>

static int shortui_init(kytos_napp *n, char **errmsg)
{
    (void)errmsg;
    kytos_log(n, KYTOS_LOG_ERROR, "shortui: init ran despite a short ui table");
    return KYTOS_OK;
}

KYTOS_NAPP_DEFINE("kytos", "shortui", "0.0.1", KYTOS_NO_DEPS, NULL, 0, 0, shortui_init, NULL, NULL);

KYTOS__EXPORT const uint32_t kytos_napp_ui[2] = {KYTOS_NAPP_UI_MAGIC, sizeof(struct kytos_napp_ui)};
