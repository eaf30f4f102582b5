// The C shim of glow-server's HTTP: Debian's GNU libmicrohttpd (libmicrohttpd-dev). The project
// writes no HTTP parser of its own; this header only makes the library's variadic entry point
// callable from Swift, which cannot call C variadic functions.
#ifndef GLOW_CMICROHTTPD_SHIM_H
#define GLOW_CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

// Leaves a path and its query as they came, percent-escapes and all: the server compares call
// names on the raw path (SERVER-1), so `/v1/%68ealth` and `/v1/sign-in%00` name no call.
static size_t glow_mhd_keep_escapes(void *context, struct MHD_Connection *connection, char *text) {
    (void)context;
    (void)connection;
    return strlen(text);
}

// Starts a daemon on an already listening socket, its connections polled by a pool of `threads`
// threads with epoll, each request's end reported to `completed`. Connections may be suspended
// while their request is answered elsewhere, so no polling thread waits on a handler. `admit` is
// asked before a connection is taken in, and `notify` told when one starts and when it closes.
static inline struct MHD_Daemon *glow_mhd_start(
    MHD_AccessHandlerCallback handler, MHD_RequestCompletedCallback completed, MHD_AcceptPolicyCallback admit,
    MHD_NotifyConnectionCallback notify, void *context, int listen_socket, unsigned int threads,
    unsigned int connection_limit, unsigned int timeout_seconds, size_t connection_memory) {
    return MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME, 0, admit, context, handler,
        context,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_socket,
        MHD_OPTION_NOTIFY_COMPLETED, completed, context,
        MHD_OPTION_NOTIFY_CONNECTION, notify, context,
        MHD_OPTION_THREAD_POOL_SIZE, threads,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory,
        MHD_OPTION_UNESCAPE_CALLBACK, glow_mhd_keep_escapes, NULL,
        MHD_OPTION_END);
}

// The request's headers with their lengths, so each is read as the bytes the library kept.
// (Closed enums import into Swift under other names; helpers like this keep the C spelling in one
// place.)
static inline int glow_mhd_headers_n(
    struct MHD_Connection *connection, MHD_KeyValueIteratorN iterator, void *context) {
    return MHD_get_connection_values_n(connection, MHD_HEADER_KIND, iterator, context);
}

// The request's trailers (the fields after a chunked body), as glow_mhd_headers_n gives headers.
static inline int glow_mhd_trailers_n(
    struct MHD_Connection *connection, MHD_KeyValueIteratorN iterator, void *context) {
    return MHD_get_connection_values_n(connection, MHD_FOOTER_KIND, iterator, context);
}

// Whether a value the iterators give is a trailer's rather than a header's.
static inline int glow_mhd_is_trailer(enum MHD_ValueKind kind) { return kind == MHD_FOOTER_KIND; }

static inline struct MHD_Response *glow_mhd_copied_response(size_t size, const void *bytes) {
    return MHD_create_response_from_buffer(size, (void *)bytes, MHD_RESPMEM_MUST_COPY);
}

// An address as text ("127.0.0.1", "::1"), or "unix" for a Unix socket's peer; 0 when it is none
// of those.
static inline int glow_mhd_address_text(const struct sockaddr *address, char *text, size_t size) {
    if (address == NULL) return 0;
    if (address->sa_family == AF_INET) {
        return inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, text, (socklen_t)size) != NULL;
    }
    if (address->sa_family == AF_INET6) {
        return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, text, (socklen_t)size) != NULL;
    }
    if (address->sa_family == AF_UNIX && size > 4) {
        text[0] = 'u'; text[1] = 'n'; text[2] = 'i'; text[3] = 'x'; text[4] = 0;
        return 1;
    }
    return 0;
}

// The peer's address as text (glow_mhd_address_text); 0 when the library knows no address.
static inline int glow_mhd_peer(struct MHD_Connection *connection, char *text, size_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL) return 0;
    return glow_mhd_address_text(info->client_addr, text, size);
}

// The connection's socket, or -1.
static inline int glow_mhd_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}

// Whether a connection notification says it started (1) or closed (0).
static inline int glow_mhd_started(enum MHD_ConnectionNotificationCode code) {
    return code == MHD_CONNECTION_NOTIFY_STARTED;
}

static inline enum MHD_Result glow_mhd_yes(void) { return MHD_YES; }
static inline enum MHD_Result glow_mhd_no(void) { return MHD_NO; }
#endif
