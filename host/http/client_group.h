/* host/http/client_group.h - which client a connection or a request counts as,
 * for the per-client limits (api_per_ip_connection_limit, api_rate_limit).
 *
 * An IPv4 address is one client.  An IPv6 host usually holds a whole /64
 * and can pick a fresh address in it for each connection, so IPv6
 * addresses count together by their first api_ipv6_client_prefix bits
 * (64 by default; 128 counts each address).  An IPv4-mapped IPv6 address
 * (::ffff:a.b.c.d, an IPv4 client on a dual-stack socket) is its IPv4
 * address. */
#ifndef KH_CLIENT_GROUP_H
#define KH_CLIENT_GROUP_H

#include <stddef.h>
#include <sys/socket.h>

#define KH_CLIENT_KEY_LEN 17            /* family byte + 16 address bytes */
#define KH_CLIENT_TEXT_LEN 52           /* an IPv6 address, "/128", NUL */

/* The prefix from the setting: 1..128, anything else 64. */
unsigned kh_client_prefix(long long setting);

/* addr's group as a fixed-size key; 0, or -1 for a family without one. */
int kh_client_key(const struct sockaddr *addr, unsigned v6_prefix,
                  unsigned char key[KH_CLIENT_KEY_LEN]);

/* The group of an address given as text (an IPv4 or IPv6 address, as
 * kytos_req.peer holds it), as text: the IPv4 address, or the IPv6
 * prefix ("2001:db8:0:1::/64"; the address itself at 128).  Text that is
 * not an address is copied as it is. */
void kh_client_group_text(const char *addr, unsigned v6_prefix, char *out, size_t len);

#endif
