/*
 * throng-io: the load path's TCP sockets without Node's stream machinery (agent/src/transports/native-io.ts).
 *
 * Node hands every read to JavaScript on its own (libuv read -> StreamBase -> MakeCallback -> onread) and every
 * write through Writable, a WriteWrap and uv_try_write: at 20k sockets that is most of the agent's user-space CPU
 * per message. Here the sockets live in one epoll set that libuv watches as a single fd (uv_poll on the main
 * thread, no extra threads). When it is readable, one pass reads every ready socket into one shared arena and
 * calls JavaScript once with the whole batch as (kind, id, a, b) records; a write is one send() from the caller's
 * stack, and only what the kernel does not take is copied and waits for EPOLLOUT.
 *
 * Each read of a client socket is stamped with the time the kernel took in its newest packet (SO_TIMESTAMPNS), on
 * uv_hrtime()'s clock; other reads with uv_hrtime() as they are made. So a message's receive time is when it
 * arrived, not when the agent, busy sending or decoding, read it, nor when JavaScript got to it in the batch.
 *
 * Listening sockets sit in the same set (the reference target's TCP and ws:// servers): a readable listener
 * accepts what waits, and each new connection is one EV_ACCEPT record naming the listener and the new id.
 *
 * Slots closed while a batch is built or dispatched are freed after it, so a later record of the same batch can
 * never reach a new connection that reused the id.
 */
#define _GNU_SOURCE /* accept4 */
#define NAPI_VERSION 8
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

enum { EV_CONNECTED = 1, EV_DATA = 2, EV_END = 3, EV_ERROR = 4, EV_ACCEPT = 5, EV_ACCEPT_PAUSED = 6 };
enum { MAX_EPOLL_EVENTS = 512, MAX_READ = 64 * 1024, MAX_PASSES = 8, MAX_ACCEPTS = 256 };

typedef struct {
  int fd; /* -1: the slot is free (or waiting to be freed) */
  int connecting;
  int listening;
  int shutdown_wanted; /* end(): shut our side once everything pending has gone */
  int stamped;         /* the kernel stamps each arriving packet (SO_TIMESTAMPNS): a client socket's reads */
  uint32_t interest;
  char *pending;
  size_t pending_off, pending_len, pending_cap;
} conn_t;

typedef struct {
  napi_env env;
  napi_ref callback;
  napi_ref arena_ref, records_ref, times_ref;
  napi_async_context async_context;
  uint8_t *arena;
  size_t arena_len, arena_used;
  int32_t *records;
  size_t records_cap, record_count; /* in records of four int32 */
  double *times;                    /* per record: uv_hrtime() in ms when a DATA record's bytes were read */
  conn_t *conns;
  size_t conns_cap;
  int32_t *free_ids;
  size_t free_count, free_cap;
  int32_t *deferred_ids;
  size_t deferred_count, deferred_cap;
  int64_t realtime_minus_hrtime_ns; /* CLOCK_REALTIME - uv_hrtime(), taken at the start of each pass */
  int open_count, dispatching, polling, epfd;
  uv_poll_t poll;
} driver_t;

static driver_t driver = {.epfd = -1};

static int push_id(int32_t **list, size_t *count, size_t *cap, int32_t id) {
  if (*count == *cap) {
    size_t cap2 = *cap ? *cap * 2 : 1024;
    int32_t *grown = realloc(*list, cap2 * sizeof(int32_t));
    if (!grown) return -ENOMEM;
    *list = grown;
    *cap = cap2;
  }
  (*list)[(*count)++] = id;
  return 0;
}

static int32_t take_slot(void) {
  if (driver.free_count > 0) return driver.free_ids[--driver.free_count];
  size_t id = driver.conns_cap;
  size_t cap2 = driver.conns_cap ? driver.conns_cap * 2 : 1024;
  if (cap2 > INT32_MAX) return -EMFILE;
  conn_t *grown = realloc(driver.conns, cap2 * sizeof(conn_t));
  if (!grown) return -ENOMEM;
  driver.conns = grown;
  for (size_t i = id; i < cap2; i++) driver.conns[i] = (conn_t){.fd = -1};
  driver.conns_cap = cap2;
  /* Hand out the lowest new id now and keep the rest free, highest first so low ids are reused first. */
  for (size_t i = cap2 - 1; i > id; i--) push_id(&driver.free_ids, &driver.free_count, &driver.free_cap, (int32_t)i);
  return (int32_t)id;
}

static void on_poll(uv_poll_t *handle, int status, int events);

static void update_polling(void) {
  if (driver.open_count > 0 && !driver.polling) {
    uv_poll_start(&driver.poll, UV_READABLE, on_poll);
    driver.polling = 1;
  } else if (driver.open_count == 0 && driver.polling) {
    uv_poll_stop(&driver.poll);
    driver.polling = 0;
  }
}

/*
 * Edge-triggered: a socket is reported when something changes, not again and again while it stays readable. Level
 * triggering put every socket just read back on the ready list, so the next pass polled each one again (tcp_poll,
 * sock_poll, ep_item_poll: 6% of the agent's CPU per S2 echo) only to find it empty. The price is that a read
 * which may have left bytes behind (a full MAX_READ) must re-arm the socket (rearm), which re-queues it if it is
 * still readable.
 */
#define WATCH (EPOLLET | EPOLLRDHUP)

static int modify_interest(int32_t id, uint32_t interest) {
  conn_t *c = &driver.conns[id];
  struct epoll_event ev = {.events = interest | WATCH, .data.u32 = (uint32_t)id};
  if (epoll_ctl(driver.epfd, EPOLL_CTL_MOD, c->fd, &ev) < 0) return -errno;
  c->interest = interest;
  return 0;
}

static int set_interest(int32_t id, uint32_t interest) {
  return driver.conns[id].interest == interest ? 0 : modify_interest(id, interest);
}

/* Reports the socket again next pass if what it waits for is still there (edge-triggered epoll would not). */
static void rearm(int32_t id) {
  modify_interest(id, driver.conns[id].interest);
}

/*
 * Closes the socket now; the id is reusable once no batch can still name it. The addon's own closes (an error, the
 * peer's FIN) always record the id in the batch being built, so they wait for its end like closes made during it.
 */
static void release(int32_t id, int recorded) {
  conn_t *c = &driver.conns[id];
  if (c->fd < 0) return;
  close(c->fd); /* also leaves the epoll set */
  free(c->pending);
  *c = (conn_t){.fd = -1};
  driver.open_count--;
  if (driver.dispatching || recorded) push_id(&driver.deferred_ids, &driver.deferred_count, &driver.deferred_cap, id);
  else push_id(&driver.free_ids, &driver.free_count, &driver.free_cap, id);
}

static void record(int32_t kind, int32_t id, int32_t a, int32_t b) {
  int32_t *r = driver.records + driver.record_count * 4;
  r[0] = kind;
  r[1] = id;
  r[2] = a;
  r[3] = b;
  driver.record_count++;
}

/* Hands the batch to JavaScript: one call, however many sockets were ready. */
static void dispatch(void) {
  if (driver.record_count == 0) return;
  napi_env env = driver.env;
  napi_handle_scope scope;
  napi_open_handle_scope(env, &scope);
  napi_value callback, recv, argv[2], result;
  napi_get_reference_value(env, driver.callback, &callback);
  napi_get_global(env, &recv); /* napi_make_callback wants an object as `this` */
  napi_create_int32(env, (int32_t)driver.record_count, &argv[0]);
  /* Now on the reads' clock: JavaScript takes its own now beside it, so no offset between clocks is ever assumed. */
  napi_create_double(env, (double)uv_hrtime() / 1e6, &argv[1]);
  driver.dispatching = 1;
  napi_status status = napi_make_callback(env, driver.async_context, recv, callback, 2, argv, &result);
  driver.dispatching = 0;
  if (status == napi_pending_exception) {
    napi_value error;
    napi_get_and_clear_last_exception(env, &error);
    napi_fatal_exception(env, error);
  } else if (status != napi_ok) {
    napi_fatal_error("throng-io", NAPI_AUTO_LENGTH, "could not call the batch callback", NAPI_AUTO_LENGTH);
  }
  napi_close_handle_scope(env, scope);
  driver.record_count = 0;
  driver.arena_used = 0;
  while (driver.deferred_count > 0)
    push_id(&driver.free_ids, &driver.free_count, &driver.free_cap, driver.deferred_ids[--driver.deferred_count]);
}

static int socket_error(int fd) {
  int error = 0;
  socklen_t len = sizeof(error);
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) < 0) return errno;
  return error;
}

static void fail(int32_t id, int error) {
  release(id, 1);
  record(EV_ERROR, id, error, 0);
}

/* Writes what is pending; after end(), shuts our side once nothing is. */
static int flush_pending(int32_t id) {
  conn_t *c = &driver.conns[id];
  while (c->pending_len > 0) {
    ssize_t n = send(c->fd, c->pending + c->pending_off, c->pending_len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      if (errno == EINTR) continue;
      return -errno;
    }
    c->pending_off += (size_t)n;
    c->pending_len -= (size_t)n;
  }
  if (c->pending_len == 0) {
    /*
     * Drained: give the buffer back. Kept, it was at least 4 KiB for every connection that once found the kernel's
     * send buffer full (a busy target, a slow ramp), for as long as the connection lived: megabytes per engine at
     * 18,000 connections.
     */
    free(c->pending);
    c->pending = NULL;
    c->pending_off = 0;
    c->pending_cap = 0;
  }
  if (c->pending_len == 0 && c->shutdown_wanted == 1) {
    shutdown(c->fd, SHUT_WR);
    c->shutdown_wanted = 2;
  }
  return set_interest(id, EPOLLIN | (c->pending_len > 0 ? EPOLLOUT : 0));
}

/*
 * A listener is readable: accept what waits (bounded per pass, and by the room left for records; level-triggered,
 * so the rest come next pass). Out of file descriptors, the listener stops watching and says so: JavaScript
 * resumes it a little later, where level-triggered polling would otherwise spin on the same error.
 */
static void on_acceptable(int32_t id) {
  conn_t *l = &driver.conns[id];
  for (int i = 0;; i++) {
    if (i == MAX_ACCEPTS || driver.record_count == driver.records_cap) return rearm(id); /* more may wait */
    int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        set_interest(id, 0);
        record(EV_ACCEPT_PAUSED, id, errno, 0);
      }
      return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    int32_t accepted = take_slot();
    struct epoll_event ev = {.events = EPOLLIN | WATCH, .data.u32 = (uint32_t)accepted};
    if (accepted < 0 || epoll_ctl(driver.epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
      if (accepted >= 0) push_id(&driver.free_ids, &driver.free_count, &driver.free_cap, accepted);
      close(fd);
      continue;
    }
    l = &driver.conns[id]; /* take_slot may have moved the table */
    driver.conns[accepted] = (conn_t){.fd = fd, .interest = EPOLLIN};
    driver.open_count++;
    record(EV_ACCEPT, id, accepted, 0);
  }
}

/*
 * A client socket's read, with the time the kernel took in its newest packet (SO_TIMESTAMPNS, CLOCK_REALTIME ns,
 * in *arrived_ns; -1 when there is none). A pong that arrives while the agent is busy (sending the rest of a
 * timer slot's pings, decoding an earlier read) is timed by its arrival, not by when the agent got round to it.
 */
static ssize_t recv_stamped(int fd, int64_t *arrived_ns) {
  struct iovec iov = {.iov_base = driver.arena + driver.arena_used, .iov_len = MAX_READ};
  union {
    char bytes[CMSG_SPACE(sizeof(struct timespec))];
    struct cmsghdr align;
  } control;
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof(control.bytes)};
  ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT);
  if (n <= 0) return n;
  for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm != NULL; cm = CMSG_NXTHDR(&msg, cm)) {
    if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_TIMESTAMPNS) continue;
    struct timespec at;
    memcpy(&at, CMSG_DATA(cm), sizeof(at));
    *arrived_ns = (int64_t)at.tv_sec * 1000000000 + at.tv_nsec;
  }
  return n;
}

/*
 * A read's time in ms on uv_hrtime()'s clock: the kernel's arrival stamp moved onto it, or now when there is no
 * stamp. Never later than now, so a step of the wall clock during the pass cannot put a receipt in the future.
 */
static double read_time_ms(int64_t arrived_ns) {
  uint64_t now_ns = uv_hrtime();
  if (arrived_ns < 0) return (double)now_ns / 1e6;
  int64_t arrived_hr_ns = arrived_ns - driver.realtime_minus_hrtime_ns;
  return (double)(arrived_hr_ns < (int64_t)now_ns ? arrived_hr_ns : (int64_t)now_ns) / 1e6;
}

static void on_ready(int32_t id, uint32_t events) {
  conn_t *c = &driver.conns[id];
  if (c->fd < 0) return;
  if (c->listening) return on_acceptable(id);
  if (c->connecting) {
    if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) return;
    int error = socket_error(c->fd);
    if (error) return fail(id, error);
    c->connecting = 0;
    int rc = flush_pending(id);
    if (rc < 0) return fail(id, -rc);
    record(EV_CONNECTED, id, 0, 0);
    return;
  }
  if (events & EPOLLOUT) {
    int rc = flush_pending(id);
    if (rc < 0) return fail(id, -rc);
  }
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
    int64_t arrived_ns = -1;
    ssize_t n = c->stamped ? recv_stamped(c->fd, &arrived_ns) : recv(c->fd, driver.arena + driver.arena_used, MAX_READ, MSG_DONTWAIT);
    if (n > 0) {
      driver.times[driver.record_count] = read_time_ms(arrived_ns);
      record(EV_DATA, id, (int32_t)driver.arena_used, (int32_t)n);
      driver.arena_used += (size_t)n;
      /*
       * A full read may have left bytes behind (one read per socket per pass keeps a flood from starving the rest),
       * and a FIN that came with the bytes gets no edge of its own: either way, look again next pass.
       */
      if (n == MAX_READ || (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))) rearm(id);
    } else if (n == 0) {
      /* The peer's FIN. Like net without allowHalfOpen, that ends the connection: close, and say so. */
      release(id, 1);
      record(EV_END, id, 0, 0);
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      fail(id, errno);
    }
  }
}

static void on_poll(uv_poll_t *handle, int status, int events) {
  (void)handle;
  (void)status;
  (void)events;
  struct epoll_event ready[MAX_EPOLL_EVENTS];
  /* A few passes at most, so a flood on these sockets cannot starve the rest of the event loop. */
  for (int pass = 0; pass < MAX_PASSES; pass++) {
    int n = epoll_wait(driver.epfd, ready, MAX_EPOLL_EVENTS, 0);
    if (n <= 0) break;
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    driver.realtime_minus_hrtime_ns = (int64_t)wall.tv_sec * 1000000000 + wall.tv_nsec - (int64_t)uv_hrtime();
    for (int i = 0; i < n; i++) {
      /* Room for one more full read and its record, or the batch goes to JavaScript first. */
      if (driver.arena_len - driver.arena_used < MAX_READ || driver.record_count + 1 > driver.records_cap) dispatch();
      on_ready((int32_t)ready[i].data.u32, ready[i].events);
    }
    dispatch();
    if (n < MAX_EPOLL_EVENTS) break;
  }
  update_polling();
}

/* ---- JavaScript API ---------------------------------------------------------------------------------------- */

#define CHECK(call)                                                   \
  do {                                                                \
    if ((call) != napi_ok) {                                          \
      napi_throw_error(env, "ETHRONGIO", "throng-io: " #call " failed"); \
      return NULL;                                                    \
    }                                                                 \
  } while (0)

static napi_value int_value(napi_env env, int32_t value) {
  napi_value out;
  napi_create_int32(env, value, &out);
  return out;
}

/*
 * init(callback, arena: Buffer, records: Int32Array, times: Float64Array): the batch callback gets the number of
 * records and uv_hrtime() in ms as it is called; `times` has one slot per record (records.length / 4).
 */
static napi_value js_init(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (driver.epfd >= 0) {
    napi_throw_error(env, "ETHRONGIO", "throng-io: already initialised in this process");
    return NULL;
  }
  void *arena;
  size_t arena_len;
  CHECK(napi_get_buffer_info(env, argv[1], &arena, &arena_len));
  napi_typedarray_type type;
  size_t records_len;
  void *records;
  CHECK(napi_get_typedarray_info(env, argv[2], &type, &records_len, &records, NULL, NULL));
  napi_typedarray_type times_type;
  size_t times_len;
  void *times;
  CHECK(napi_get_typedarray_info(env, argv[3], &times_type, &times_len, &times, NULL, NULL));
  if (type != napi_int32_array || arena_len < 2 * MAX_READ || records_len < 4 * 16 || times_type != napi_float64_array || times_len * 4 < records_len) {
    napi_throw_type_error(env, "ETHRONGIO", "throng-io: init needs a Buffer of at least 128 KiB, an Int32Array of at least 64 and a Float64Array a quarter its length");
    return NULL;
  }
  driver.env = env;
  CHECK(napi_create_reference(env, argv[0], 1, &driver.callback));
  CHECK(napi_create_reference(env, argv[1], 1, &driver.arena_ref));
  CHECK(napi_create_reference(env, argv[2], 1, &driver.records_ref));
  CHECK(napi_create_reference(env, argv[3], 1, &driver.times_ref));
  napi_value name;
  CHECK(napi_create_string_utf8(env, "throng-io", NAPI_AUTO_LENGTH, &name));
  CHECK(napi_async_init(env, NULL, name, &driver.async_context));
  driver.arena = arena;
  driver.arena_len = arena_len;
  driver.records = records;
  driver.records_cap = records_len / 4;
  driver.times = times;
  driver.epfd = epoll_create1(EPOLL_CLOEXEC);
  if (driver.epfd < 0) return int_value(env, -errno);
  uv_loop_t *loop;
  CHECK(napi_get_uv_event_loop(env, &loop));
  if (uv_poll_init(loop, &driver.poll, driver.epfd) != 0) return int_value(env, -EINVAL);
  return int_value(env, 0);
}

static int parse_address(napi_env env, napi_value value, int port, struct sockaddr_storage *out, socklen_t *len) {
  char text[64];
  size_t text_len;
  if (napi_get_value_string_utf8(env, value, text, sizeof(text), &text_len) != napi_ok) return -EINVAL;
  memset(out, 0, sizeof(*out));
  struct sockaddr_in *v4 = (struct sockaddr_in *)out;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)out;
  if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
    *len = sizeof(*v4);
    return 0;
  }
  if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    *len = sizeof(*v6);
    return 0;
  }
  return -EINVAL;
}

/* Added to a bind() failure's -errno, so JavaScript can name the call that failed. */
#define BIND_FAILED 0x10000

/*
 * connect(host: IP literal, port, localAddress?: IP literal, localPort?) -> id, or when it failed at once -errno
 * (-errno - BIND_FAILED when binding the local end failed).
 */
static napi_value js_connect(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t port = 0, local_port = 0;
  CHECK(napi_get_value_int32(env, argv[1], &port));
  struct sockaddr_storage remote, local;
  socklen_t remote_len, local_len = 0;
  if (parse_address(env, argv[0], port, &remote, &remote_len) < 0) return int_value(env, -EINVAL);
  napi_valuetype local_type = napi_undefined;
  if (argc > 2) napi_typeof(env, argv[2], &local_type);
  if (local_type == napi_string) {
    if (argc > 3) napi_get_value_int32(env, argv[3], &local_port);
    if (parse_address(env, argv[2], local_port, &local, &local_len) < 0) return int_value(env, -EINVAL);
  }
  int fd = socket(remote.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return int_value(env, -errno);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  /* Only a client's receive times are measured; without the option its reads are timed when made. */
  int stamped = setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) == 0;
  if (local_len > 0) {
    /* As libuv's bind does: a port in TIME_WAIT from an earlier run can be bound again. */
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&local, local_len) < 0) {
      int error = errno;
      close(fd);
      return int_value(env, -error - BIND_FAILED);
    }
  }
  if (connect(fd, (struct sockaddr *)&remote, remote_len) < 0 && errno != EINPROGRESS) {
    int error = errno;
    close(fd);
    return int_value(env, -error);
  }
  int32_t id = take_slot();
  if (id < 0) {
    close(fd);
    return int_value(env, id);
  }
  struct epoll_event ev = {.events = EPOLLOUT | WATCH, .data.u32 = (uint32_t)id};
  if (epoll_ctl(driver.epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
    int error = errno;
    close(fd);
    push_id(&driver.free_ids, &driver.free_count, &driver.free_cap, id);
    return int_value(env, -error);
  }
  driver.conns[id] = (conn_t){.fd = fd, .connecting = 1, .stamped = stamped, .interest = EPOLLOUT};
  driver.open_count++;
  update_polling();
  return int_value(env, id);
}

/*
 * listen(host: IP literal, port, backlog, reusePort?) -> id, or -errno (-errno - BIND_FAILED when bind() failed).
 * `reusePort` sets SO_REUSEPORT: several processes listen on one port and the kernel spreads connections over them
 * (the reference target's --processes, each process under its own open-file limit).
 */
static napi_value js_listen(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t port = 0, backlog = 511;
  bool reuse_port = false;
  CHECK(napi_get_value_int32(env, argv[1], &port));
  if (argc > 2) napi_get_value_int32(env, argv[2], &backlog);
  if (argc > 3) napi_get_value_bool(env, argv[3], &reuse_port);
  struct sockaddr_storage address;
  socklen_t address_len;
  if (parse_address(env, argv[0], port, &address, &address_len) < 0) return int_value(env, -EINVAL);
  int fd = socket(address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return int_value(env, -errno);
  int one = 1;
  /* As libuv does for a server: a port whose old connections sit in TIME_WAIT can be listened on again. */
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (reuse_port && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0) {
    int error = errno;
    close(fd);
    return int_value(env, -error);
  }
  if (bind(fd, (struct sockaddr *)&address, address_len) < 0) {
    int error = errno;
    close(fd);
    return int_value(env, -error - BIND_FAILED);
  }
  if (listen(fd, backlog) < 0) {
    int error = errno;
    close(fd);
    return int_value(env, -error);
  }
  int32_t id = take_slot();
  struct epoll_event ev = {.events = EPOLLIN | WATCH, .data.u32 = (uint32_t)id};
  if (id < 0 || epoll_ctl(driver.epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
    int error = id < 0 ? -id : errno;
    if (id >= 0) push_id(&driver.free_ids, &driver.free_count, &driver.free_cap, id);
    close(fd);
    return int_value(env, -error);
  }
  driver.conns[id] = (conn_t){.fd = fd, .listening = 1, .interest = EPOLLIN};
  driver.open_count++;
  update_polling();
  return int_value(env, id);
}

/* The open connection a call's first argument names (its other arguments land in argv), or NULL. */
static conn_t *conn_of_call(napi_env env, napi_callback_info info, size_t argc, napi_value *argv, int32_t *id) {
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) return NULL;
  if (napi_get_value_int32(env, argv[0], id) != napi_ok || *id < 0 || (size_t)*id >= driver.conns_cap) return NULL;
  conn_t *c = &driver.conns[*id];
  return c->fd < 0 ? NULL : c;
}

/* write(id, bytes: Uint8Array) -> 0, or -errno (the connection is then broken: the caller destroys it). */
static napi_value js_write(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  int32_t id;
  conn_t *c = conn_of_call(env, info, 2, argv, &id);
  if (!c) return int_value(env, -EBADF);
  napi_typedarray_type type;
  size_t length;
  void *data;
  CHECK(napi_get_typedarray_info(env, argv[1], &type, &length, &data, NULL, NULL));
  if (type != napi_uint8_array) return int_value(env, -EINVAL);
  size_t sent = 0;
  if (c->pending_len == 0 && !c->connecting && c->shutdown_wanted == 0) {
    while (sent < length) {
      ssize_t n = send(c->fd, (char *)data + sent, length - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        return int_value(env, -errno);
      }
      sent += (size_t)n;
    }
    if (sent == length) return int_value(env, 0);
  }
  size_t rest = length - sent;
  if (c->pending_off + c->pending_len + rest > c->pending_cap) {
    if (c->pending_off > 0) {
      memmove(c->pending, c->pending + c->pending_off, c->pending_len);
      c->pending_off = 0;
    }
    if (c->pending_len + rest > c->pending_cap) {
      size_t cap2 = c->pending_cap ? c->pending_cap : 4096;
      while (cap2 < c->pending_len + rest) cap2 *= 2;
      char *grown = realloc(c->pending, cap2);
      if (!grown) return int_value(env, -ENOMEM);
      c->pending = grown;
      c->pending_cap = cap2;
    }
  }
  memcpy(c->pending + c->pending_off + c->pending_len, (char *)data + sent, rest);
  c->pending_len += rest;
  if (!c->connecting) {
    int rc = set_interest(id, EPOLLIN | EPOLLOUT);
    if (rc < 0) return int_value(env, rc);
  }
  return int_value(env, 0);
}

/* end(id): no more writes from us; our FIN goes once everything pending has been sent. */
static napi_value js_end(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int32_t id;
  conn_t *c = conn_of_call(env, info, 1, argv, &id);
  if (!c) return int_value(env, -EBADF);
  if (c->shutdown_wanted == 0) c->shutdown_wanted = 1;
  if (c->connecting) return int_value(env, 0);
  return int_value(env, flush_pending(id));
}

/* localPort(id) -> the port the socket is bound to (a listener on port 0 learns its port), or -errno. */
static napi_value js_local_port(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int32_t id;
  conn_t *c = conn_of_call(env, info, 1, argv, &id);
  if (!c) return int_value(env, -EBADF);
  struct sockaddr_storage address;
  socklen_t len = sizeof(address);
  if (getsockname(c->fd, (struct sockaddr *)&address, &len) < 0) return int_value(env, -errno);
  uint16_t port = address.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&address)->sin6_port : ((struct sockaddr_in *)&address)->sin_port;
  return int_value(env, ntohs(port));
}

/* resumeAccepting(id): a listener paused by EV_ACCEPT_PAUSED watches for connections again. */
static napi_value js_resume_accepting(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int32_t id;
  conn_t *c = conn_of_call(env, info, 1, argv, &id);
  if (!c || !c->listening) return int_value(env, -EBADF);
  return int_value(env, set_interest(id, EPOLLIN));
}

/* close(id, reset?): closes the socket at once, dropping anything unsent; `reset` sends RST instead of FIN. */
static napi_value js_close(napi_env env, napi_callback_info info) {
  napi_value argv[2] = {NULL, NULL};
  int32_t id;
  conn_t *c = conn_of_call(env, info, 2, argv, &id);
  if (!c) return int_value(env, -EBADF);
  bool reset = false;
  if (argv[1] != NULL) napi_get_value_bool(env, argv[1], &reset);
  if (reset) {
    struct linger abort_on_close = {.l_onoff = 1, .l_linger = 0};
    setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof(abort_on_close));
  }
  release(id, 0);
  update_polling();
  return int_value(env, 0);
}

/*
 * raiseNofile() -> the soft open-file limit after raising it to the hard one (a connection is a descriptor, and
 * the soft limit is often 1,024 where the hard one is far higher), or -errno when it could not be read or set.
 * Node raises it itself at start-up on most builds; this makes sure of it wherever the agent runs.
 */
static napi_value js_raise_nofile(napi_env env, napi_callback_info info) {
  (void)info;
  struct rlimit limit;
  napi_value out;
  if (getrlimit(RLIMIT_NOFILE, &limit) < 0) return int_value(env, -errno);
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) < 0) return int_value(env, -errno);
  }
  napi_create_double(env, (double)limit.rlim_cur, &out);
  return out;
}

static void export_int(napi_env env, napi_value exports, const char *name, int32_t value) {
  napi_set_named_property(env, exports, name, int_value(env, value));
}

NAPI_MODULE_INIT() {
  napi_property_descriptor methods[] = {
      {"init", NULL, js_init, NULL, NULL, NULL, napi_default, NULL},
      {"connect", NULL, js_connect, NULL, NULL, NULL, napi_default, NULL},
      {"write", NULL, js_write, NULL, NULL, NULL, napi_default, NULL},
      {"end", NULL, js_end, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, js_close, NULL, NULL, NULL, napi_default, NULL},
      {"listen", NULL, js_listen, NULL, NULL, NULL, napi_default, NULL},
      {"localPort", NULL, js_local_port, NULL, NULL, NULL, napi_default, NULL},
      {"resumeAccepting", NULL, js_resume_accepting, NULL, NULL, NULL, napi_default, NULL},
      {"raiseNofile", NULL, js_raise_nofile, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof(methods) / sizeof(methods[0]), methods);
  export_int(env, exports, "BIND_FAILED", BIND_FAILED);
  export_int(env, exports, "EV_CONNECTED", EV_CONNECTED);
  export_int(env, exports, "EV_DATA", EV_DATA);
  export_int(env, exports, "EV_END", EV_END);
  export_int(env, exports, "EV_ERROR", EV_ERROR);
  export_int(env, exports, "EV_ACCEPT", EV_ACCEPT);
  export_int(env, exports, "EV_ACCEPT_PAUSED", EV_ACCEPT_PAUSED);
  return exports;
}
