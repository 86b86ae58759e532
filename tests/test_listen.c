/*
 * One daemon per listening address (src/server/listen_claim.c and the gRPC
 * and HTTP listeners), in a fresh directory and on free loopback ports:
 * - a unix path claimed by another process is refused, naming the path and
 *   that process's pid; its socket file is left as it was; once that
 *   process released the claim its socket is gone and the path can be
 *   claimed; a process killed holding it leaves nothing that blocks;
 * - the claim replaces a stale socket file and refuses any other file,
 *   which it keeps;
 * - a TCP port a gRPC listener holds cannot be bound again: not by a second
 *   gRPC listener (its error says "address in use (another daemon?)"), not
 *   by a socket with SO_REUSEPORT (the listener has not set it), not claimed;
 * - the HTTP status listener on a port in use fails saying so.
 * The unix path is given as unix:/// or unix:/ at random (printed seed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server/grpc_adapter.h"
#include "server/http_status.h"
#include "server/listen_claim.h"
#include "testutil.h"

static cuzk_rng rng;

/* ---- unix sockets ---------------------------------------------------------- */

/* A socket file at path, as a listener leaves it (bound, then closed). */
static void socket_file(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK_MSG(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0, "bind %s: %s", path, strerror(errno));
    close(fd);
}

static ino_t inode(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? st.st_ino : 0;
}

static long lock_file_pid(const char *sock)
{
    char lock[256], buf[32] = {0};
    snprintf(lock, sizeof lock, "%s.lock", sock);
    FILE *f = fopen(lock, "r");
    if (!f) return -1;
    long pid = fgets(buf, sizeof buf, f) ? strtol(buf, NULL, 10) : -1;
    fclose(f);
    return pid;
}

/* A child process that claims listen and makes its socket file, then
 * waits: on a byte written to *go_fd it releases the claim and exits 0;
 * killed, it leaves both behind. Returns once it has claimed. */
static pid_t claiming_child(const char *listen, const char *sock, int *go_fd)
{
    int ready[2], go[2];
    if (pipe(ready) || pipe(go)) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        char err[512];
        listen_claim *c = listen_claim_take(listen, err, sizeof err);
        if (!c) _exit(2);
        socket_file(sock);
        char b = 'y';
        if (write(ready[1], &b, 1) != 1 || read(go[0], &b, 1) != 1) _exit(3);
        listen_claim_release(c);
        _exit(0);
    }
    char b = 0;
    CHECK_MSG(read(ready[0], &b, 1) == 1 && b == 'y', "the child claimed %s", listen);
    close(ready[0]), close(ready[1]), close(go[0]);
    *go_fd = go[1];
    return pid;
}

static void test_unix(const char *dir)
{
    char sock[200], listen[220], err[512];
    snprintf(sock, sizeof sock, "%s/cuzk.sock", dir);
    snprintf(listen, sizeof listen, cuzk_rng_u64(&rng) & 1 ? "unix://%s" : "unix:%s", sock);
    printf("unix listen address: %s\n", listen);

    /* held by another process: refused naming it; its socket untouched */
    int go;
    pid_t child = claiming_child(listen, sock, &go);
    ino_t ino = inode(sock);
    listen_claim *c = listen_claim_take(listen, err, sizeof err);
    char pid[32];
    snprintf(pid, sizeof pid, "pid %ld", (long)child);
    CHECK_MSG(!c && strstr(err, sock) && strstr(err, pid) && strstr(err, "another daemon"),
              "a claimed path is refused naming %s: %s", pid, c ? "(claimed)" : err);
    listen_claim_release(c);
    CHECK_MSG(ino && inode(sock) == ino, "the holder's socket file is left as it was");
    CHECK_MSG(lock_file_pid(sock) == child, "the lock file holds the holder's pid %ld: %ld", (long)child,
              lock_file_pid(sock));

    /* released: the holder's socket is gone, the path can be claimed */
    int st = -1;
    CHECK(write(go, "g", 1) == 1 && waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(go);
    CHECK_MSG(inode(sock) == 0, "the holder removed its socket when it released the claim");
    c = listen_claim_take(listen, err, sizeof err);
    CHECK_MSG(c != NULL, "claimed once released: %s", c ? "" : err);
    CHECK(lock_file_pid(sock) == (long)getpid());
    listen_claim_release(c);

    /* killed holding it: the lock went with it; its socket file is stale */
    child = claiming_child(listen, sock, &go);
    CHECK(kill(child, SIGKILL) == 0 && waitpid(child, &st, 0) == child);
    close(go);
    CHECK_MSG(inode(sock) != 0, "a killed holder leaves its socket file");
    c = listen_claim_take(listen, err, sizeof err);
    CHECK_MSG(c != NULL && inode(sock) == 0, "claimed after a kill, the stale socket removed: %s", c ? "" : err);
    listen_claim_release(c);

    /* a file that is not a socket: refused, kept */
    FILE *f = fopen(sock, "w");
    CHECK(f && fputs("data\n", f) >= 0 && fclose(f) == 0);
    c = listen_claim_take(listen, err, sizeof err);
    CHECK_MSG(!c && strstr(err, "is not a socket") && inode(sock) != 0, "a regular file is refused and kept: %s",
              c ? "(claimed)" : err);
    listen_claim_release(c);
    unlink(sock);
}

/* ---- TCP ------------------------------------------------------------------- */

static void no_handler(void *ud, rpc_call *call, const char *method, const uint8_t *req, size_t len)
{
    rpc_call_reply(call, RPC_UNIMPLEMENTED, "no methods here", NULL, 0);
}

/* A loopback port nothing listens on now. */
static int free_port(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t n = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || getsockname(fd, (struct sockaddr *)&a, &n)) return -1;
    close(fd);
    return ntohs(a.sin_port);
}

/* errno of a bind to 127.0.0.1:port with SO_REUSEADDR and SO_REUSEPORT
 * (what shares a port with a listener that set SO_REUSEPORT); 0 if it binds. */
static int reuseport_bind(int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    int e = bind(fd, (struct sockaddr *)&a, sizeof a) ? errno : 0;
    close(fd);
    return e;
}

static void test_tcp(void)
{
    int port = free_port();
    CHECK(port > 0);
    char addr[64], want[128], err[512];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
    snprintf(want, sizeof want, "listen tcp %s: address in use (another daemon?)", addr);
    rpc_server_opts o = {.listen = addr, .max_message_size = 1 << 20, .handler = no_handler};
    rpc_server *a = rpc_server_start(&o, err, sizeof err);
    CHECK_MSG(a != NULL, "a gRPC listener on %s: %s", addr, a ? "" : err);
    if (!a) return;

    rpc_server *b = rpc_server_start(&o, err, sizeof err);
    CHECK_MSG(!b && !strcmp(err, want), "a second gRPC listener on %s is refused: %s", addr, b ? "(listening)" : err);
    rpc_server_stop(b, 0);
    int e = reuseport_bind(port);
    CHECK_MSG(e == EADDRINUSE, "a socket with SO_REUSEPORT cannot share the listener's port: %s",
              e ? strerror(e) : "it bound");
    listen_claim *c = listen_claim_take(addr, err, sizeof err);
    CHECK_MSG(!c && !strcmp(err, want), "the port is not claimed: %s", c ? "(claimed)" : err);
    listen_claim_release(c);
    char why[128];
    CHECK(listen_tcp_why(addr, why, sizeof why) == 0 && !strcmp(why, "address in use (another daemon?)"));

    snprintf(want, sizeof want, "status_listen %s: address in use (another daemon?)", addr);
    http_status *h = http_status_start(addr, NULL, err, sizeof err);
    CHECK_MSG(!h && !strcmp(err, want), "the status listener on a port in use: %s", h ? "(listening)" : err);
    http_status_stop(h);

    rpc_server_stop(a, 1000);
    c = listen_claim_take(addr, err, sizeof err);
    CHECK_MSG(c != NULL, "the port is claimed once the listener stopped: %s", c ? "" : err);
    listen_claim_release(c);
    CHECK(listen_tcp_why(addr, why, sizeof why) == -1);
}

int main(void)
{
    tu_init(&rng, "test_listen");
    char dir[] = "/tmp/cuzk-test-listen-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    test_unix(dir); /* first: it forks, before the gRPC core starts threads */
    test_tcp();
    char lock[256];
    snprintf(lock, sizeof lock, "%s/cuzk.sock.lock", dir);
    unlink(lock);
    rmdir(dir);
    return tu_finish("test_listen");
}
