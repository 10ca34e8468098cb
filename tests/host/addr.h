/* tests/host/addr.h - socket addresses from text, for the HTTP layer's tests. */
#ifndef KYTOS_TESTS_HOST_ADDR_H
#define KYTOS_TESTS_HOST_ADDR_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>

static inline struct sockaddr_in v4(const char *ip, int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, ip, &a.sin_addr);
    return a;
}

static inline struct sockaddr_in6 v6(const char *ip)
{
    struct sockaddr_in6 a = {.sin6_family = AF_INET6};
    inet_pton(AF_INET6, ip, &a.sin6_addr);
    return a;
}

#endif
