/*
 * throng-netq: a network cohort's packets held, dropped, duplicated and reordered by the agent itself, below TCP
 * (agent/src/network/kernel-queue.ts, docs/networks.md).
 *
 * nf_tables rules in a table of the agent's own (throng_<pid>, owned by this process's netlink socket where the
 * kernel has owner tables, so it goes when the process does, even killed) send the packets of the cohorts' source
 * addresses to one netfilter queue: those a cohort's clients send (saddr, on the output hook) and those sent to
 * them (daddr, on prerouting). A thread of this addon reads the queue and decides each packet with the cohort's
 * conditions for that direction: drop it (an NF_DROP verdict), or hold it in the kernel and give its NF_ACCEPT
 * verdict when its delay (and its wait for the client's link at the cohort's rate) is over; a duplicate is a copy
 * sent on a raw socket at the same time, marked so the rules let it pass. TCP's own timers see all of it, as they
 * would a real network's. Nothing here calls JavaScript: it reads the configuration once and its counters are
 * read by stats().
 *
 * The draws per packet are those of agent/src/network/link-conditions.ts, in the same order: loss, reorder,
 * jitter, duplicate.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/xt_NFQUEUE.h>
#include <linux/inet_diag.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <node_api.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { MAX_COHORTS = 8, MAX_MATCHES = 2048, FLOWS = 1 << 16, STATS = 5 };
enum { STAT_PACKETS, STAT_DROPPED, STAT_DUPLICATED, STAT_REORDERED, STAT_OVERFLOW };
/* A client's link holds at most this much backlog; a packet that would wait longer is dropped (a full buffer). */
static const uint64_t MAX_BACKLOG_NS = 1000000000ull;

/* ---- conditions, one per cohort and direction (0: up, client to server; 1: down) ---- */

typedef struct {
  int active;
  uint64_t delay_ns, jitter_ns;
  double rate_bytes_per_ns; /* 0: no limit */
  double loss, duplicate, reorder;
  uint32_t rng; /* mulberry32's state, seeded from JavaScript */
} link_t;

typedef struct {
  uint32_t net, mask; /* host order */
  int cohort;
  int up, down;
} match_t;

typedef struct {
  uint32_t saddr, daddr;
  uint16_t sport, dport;
  uint64_t link_free_at, last_release_at;
} flow_t;

typedef struct {
  uint64_t at;
  uint64_t order;
  uint32_t id;
  uint32_t len;
  uint8_t *copy; /* a duplicate to send on the raw socket; NULL: the held packet's verdict */
} held_t;

static struct {
  link_t links[MAX_COHORTS][2];
  int cohorts;
  match_t matches[MAX_MATCHES];
  int match_count;
  flow_t *flows;
  held_t *heap;
  size_t heap_len, heap_cap;
  uint64_t order;
  uint64_t stats[MAX_COHORTS][2][STATS];
  struct nfq_handle *h;
  struct nfq_q_handle *qh;
  int nfq_fd, wake_fd, raw_fd;
  uint32_t mark;
  pthread_t thread;
  volatile int stopping;
  int running;
} q;

static struct mnl_socket *table_socket; /* kept open: an owner table lives as long as it */
static uint32_t table_seq;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* mulberry32, as agent/src/engine/seeded-random.ts. */
static double draw(link_t *link) {
  uint32_t t = (link->rng += 0x6d2b79f5u);
  t = (t ^ (t >> 15)) * (t | 1u);
  t ^= t + (t ^ (t >> 7)) * (t | 61u);
  return (double)(t ^ (t >> 14)) / 4294967296.0;
}

static void count(int cohort, int dir, int stat) {
  __atomic_add_fetch(&q.stats[cohort][dir][stat], 1, __ATOMIC_RELAXED);
}

/* ---- the held packets: a min-heap by release time, then arrival ---- */

static bool before(const held_t *a, const held_t *b) {
  return a->at < b->at || (a->at == b->at && a->order < b->order);
}

static int heap_push(held_t item) {
  if (q.heap_len == q.heap_cap) {
    size_t cap = q.heap_cap ? q.heap_cap * 2 : 1024;
    held_t *grown = realloc(q.heap, cap * sizeof(held_t));
    if (!grown) return -1;
    q.heap = grown;
    q.heap_cap = cap;
  }
  item.order = q.order++;
  size_t i = q.heap_len++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!before(&item, &q.heap[parent])) break;
    q.heap[i] = q.heap[parent];
    i = parent;
  }
  q.heap[i] = item;
  return 0;
}

static held_t heap_pop(void) {
  held_t top = q.heap[0];
  held_t last = q.heap[--q.heap_len];
  size_t i = 0;
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= q.heap_len) break;
    if (child + 1 < q.heap_len && before(&q.heap[child + 1], &q.heap[child])) child += 1;
    if (!before(&q.heap[child], &last)) break;
    q.heap[i] = q.heap[child];
    i = child;
  }
  if (q.heap_len > 0) q.heap[i] = last;
  return top;
}

static void release(held_t *item) {
  if (!item->copy) {
    nfq_set_verdict(q.qh, item->id, NF_ACCEPT, 0, NULL);
    return;
  }
  struct sockaddr_in to = { .sin_family = AF_INET };
  memcpy(&to.sin_addr, item->copy + 16, 4);
  sendto(q.raw_fd, item->copy, item->len, 0, (struct sockaddr *)&to, sizeof to);
  free(item->copy);
}

/* ---- one packet from the queue ---- */

static flow_t *flow_of(uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport, uint64_t now) {
  uint32_t hash = (saddr * 0x9e3779b1u) ^ (daddr * 0x85ebca77u) ^ ((uint32_t)sport << 16 | dport) * 0xc2b2ae3du;
  flow_t *flow = &q.flows[(hash ^ (hash >> 16)) & (FLOWS - 1)];
  bool same = flow->saddr == saddr && flow->daddr == daddr && flow->sport == sport && flow->dport == dport;
  /* A slot another flow left idle is taken over; one still busy is shared (its timing couples the two, rarely). */
  if (!same && flow->link_free_at <= now && flow->last_release_at <= now) {
    *flow = (flow_t){ .saddr = saddr, .daddr = daddr, .sport = sport, .dport = dport };
  }
  return flow;
}

static const match_t *match_of(uint32_t address, int want_up) {
  for (int i = 0; i < q.match_count; i++) {
    const match_t *m = &q.matches[i];
    if ((address & m->mask) == m->net && (want_up ? m->up : m->down)) return m;
  }
  return NULL;
}

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa, void *data) {
  (void)msg;
  (void)data;
  struct nfqnl_msg_packet_hdr *header = nfq_get_msg_packet_hdr(nfa);
  if (!header) return 0;
  uint32_t id = ntohl(header->packet_id);
  unsigned char *packet;
  int len = nfq_get_payload(nfa, &packet);
  if (len < 20 || (packet[0] >> 4) != 4) return nfq_set_verdict(qh, id, NF_ACCEPT, 0, NULL);
  uint32_t saddr, daddr;
  memcpy(&saddr, packet + 12, 4);
  memcpy(&daddr, packet + 16, 4);
  int dir = 0;
  const match_t *m = match_of(ntohl(saddr), 1);
  if (!m) {
    m = match_of(ntohl(daddr), 0);
    dir = 1;
  }
  if (!m) return nfq_set_verdict(qh, id, NF_ACCEPT, 0, NULL);
  link_t *link = &q.links[m->cohort][dir];
  if (!link->active) return nfq_set_verdict(qh, id, NF_ACCEPT, 0, NULL);
  count(m->cohort, dir, STAT_PACKETS);
  if (draw(link) < link->loss) {
    count(m->cohort, dir, STAT_DROPPED);
    return nfq_set_verdict(qh, id, NF_DROP, 0, NULL);
  }
  size_t ihl = (size_t)(packet[0] & 0x0f) * 4;
  uint16_t sport = 0, dport = 0;
  if ((packet[9] == IPPROTO_TCP || packet[9] == IPPROTO_UDP) && (size_t)len >= ihl + 4) {
    sport = (uint16_t)(packet[ihl] << 8 | packet[ihl + 1]);
    dport = (uint16_t)(packet[ihl + 2] << 8 | packet[ihl + 3]);
  }
  uint64_t now = now_ns();
  flow_t *flow = flow_of(saddr, daddr, sport, dport, now);
  uint64_t sent_at = now;
  if (link->rate_bytes_per_ns > 0) {
    uint64_t start = flow->link_free_at > now ? flow->link_free_at : now;
    if (start - now > MAX_BACKLOG_NS) {
      count(m->cohort, dir, STAT_OVERFLOW);
      return nfq_set_verdict(qh, id, NF_DROP, 0, NULL);
    }
    flow->link_free_at = start + (uint64_t)((double)len / link->rate_bytes_per_ns);
    sent_at = flow->link_free_at;
  }
  uint64_t at;
  if (draw(link) < link->reorder) {
    /* Skips the delay: it overtakes the client's packets still held. */
    count(m->cohort, dir, STAT_REORDERED);
    at = sent_at;
  } else {
    double delay = (double)link->delay_ns;
    if (link->jitter_ns) delay += (draw(link) * 2 - 1) * (double)link->jitter_ns;
    at = sent_at + (uint64_t)(delay > 0 ? delay : 0);
    /* Jitter varies the delay without reordering the client's own packets. */
    if (at < flow->last_release_at) at = flow->last_release_at;
    flow->last_release_at = at;
  }
  if (heap_push((held_t){ .at = at, .id = id }) != 0) return nfq_set_verdict(qh, id, NF_ACCEPT, 0, NULL);
  if (link->duplicate > 0 && draw(link) < link->duplicate && q.raw_fd >= 0) {
    uint8_t *copy = malloc((size_t)len);
    if (copy) {
      memcpy(copy, packet, (size_t)len);
      if (heap_push((held_t){ .at = at, .copy = copy, .len = (uint32_t)len }) == 0) count(m->cohort, dir, STAT_DUPLICATED);
      else free(copy);
    }
  }
  return 0;
}

static void *run_queue(void *arg) {
  (void)arg;
  static char buf[65536 + 8192] __attribute__((aligned));
  struct pollfd fds[2] = { { .fd = q.nfq_fd, .events = POLLIN }, { .fd = q.wake_fd, .events = POLLIN } };
  while (!q.stopping) {
    uint64_t now = now_ns();
    while (q.heap_len > 0 && q.heap[0].at <= now) {
      held_t item = heap_pop();
      release(&item);
    }
    struct timespec wait, *timeout = NULL;
    if (q.heap_len > 0) {
      uint64_t ns = q.heap[0].at - now;
      wait.tv_sec = (time_t)(ns / 1000000000ull);
      wait.tv_nsec = (long)(ns % 1000000000ull);
      timeout = &wait;
    }
    if (ppoll(fds, 2, timeout, NULL) < 0 && errno != EINTR) break;
    if (!(fds[0].revents & POLLIN)) continue;
    for (;;) {
      ssize_t n = recv(q.nfq_fd, buf, sizeof buf, MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EINTR || errno == ENOBUFS) continue;
        break;
      }
      nfq_handle_packet(q.h, buf, (int)n);
    }
  }
  /* Whatever is still held goes at once: the run is over. */
  while (q.heap_len > 0) {
    held_t item = heap_pop();
    release(&item);
  }
  return NULL;
}

/* ---- N-API helpers ---- */

static napi_value throw_error(napi_env env, const char *what, int err) {
  char message[256];
  snprintf(message, sizeof message, "%s: %s", what, strerror(err));
  napi_throw_error(env, err == EPERM ? "EPERM" : err == EBUSY || err == EEXIST ? "EBUSY" : NULL, message);
  return NULL;
}

static napi_value undefined_value(napi_env env) {
  napi_value value;
  napi_get_undefined(env, &value);
  return value;
}

static void typed_array(napi_env env, napi_value value, void **data, size_t *length) {
  napi_typedarray_type type;
  napi_value buffer;
  size_t offset;
  napi_get_typedarray_info(env, value, &type, length, data, &buffer, &offset);
}

/*
 * start(queue, mark, links: Float64Array, matches: Uint32Array): binds the queue and starts the thread.
 * links: per cohort, up then down, 8 numbers: active, delayNs, jitterNs, rateBytesPerNs, loss, duplicate, reorder, seed.
 * matches: 5 numbers each: net, mask (host order), cohort, up (0/1), down (0/1).
 */
static napi_value start(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (q.running) {
    napi_throw_error(env, "ERUNNING", "another run on this agent holds its kernel path (one run at a time uses it)");
    return NULL;
  }
  uint32_t queue_num, mark;
  napi_get_value_uint32(env, argv[0], &queue_num);
  napi_get_value_uint32(env, argv[1], &mark);
  double *links;
  uint32_t *matches;
  size_t link_count, match_count;
  typed_array(env, argv[2], (void **)&links, &link_count);
  typed_array(env, argv[3], (void **)&matches, &match_count);
  int cohorts = (int)(link_count / 16);
  if (cohorts > MAX_COHORTS || match_count / 5 > MAX_MATCHES) {
    napi_throw_range_error(env, NULL, "too many cohorts or addresses");
    return NULL;
  }
  memset(q.stats, 0, sizeof q.stats);
  q.cohorts = cohorts;
  for (int c = 0; c < cohorts; c++) {
    for (int dir = 0; dir < 2; dir++) {
      const double *l = links + (c * 2 + dir) * 8;
      q.links[c][dir] = (link_t){ .active = l[0] != 0, .delay_ns = (uint64_t)l[1], .jitter_ns = (uint64_t)l[2], .rate_bytes_per_ns = l[3],
                                  .loss = l[4], .duplicate = l[5], .reorder = l[6], .rng = (uint32_t)l[7] };
    }
  }
  q.match_count = (int)(match_count / 5);
  for (int i = 0; i < q.match_count; i++) {
    const uint32_t *m = matches + i * 5;
    q.matches[i] = (match_t){ .net = m[0] & m[1], .mask = m[1], .cohort = (int)m[2], .up = m[3] != 0, .down = m[4] != 0 };
  }
  q.flows = calloc(FLOWS, sizeof(flow_t));
  if (!q.flows) return throw_error(env, "allocating the flow table", ENOMEM);
  q.h = nfq_open();
  if (!q.h) return throw_error(env, "opening the netfilter queue socket (nfq_open)", errno);
  q.qh = nfq_create_queue(q.h, (uint16_t)queue_num, on_packet, NULL);
  if (!q.qh) {
    int err = errno ? errno : EBUSY;
    nfq_close(q.h);
    q.h = NULL;
    return throw_error(env, "binding the netfilter queue", err);
  }
  nfq_set_mode(q.qh, NFQNL_COPY_PACKET, 0xffff);
  /* Held packets wait in the kernel's queue: room for a good many of them. */
  nfq_set_queue_maxlen(q.qh, 1 << 16);
  q.nfq_fd = nfq_fd(q.h);
  nfnl_rcvbufsiz(nfq_nfnlh(q.h), 16 * 1024 * 1024);
  int on = 1;
  setsockopt(q.nfq_fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &on, sizeof on);
  q.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  q.raw_fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
  q.mark = mark;
  if (q.raw_fd >= 0) setsockopt(q.raw_fd, SOL_SOCKET, SO_MARK, &mark, sizeof mark);
  q.stopping = 0;
  q.heap_len = 0;
  if (pthread_create(&q.thread, NULL, run_queue, NULL) != 0) {
    nfq_destroy_queue(q.qh);
    nfq_close(q.h);
    return throw_error(env, "starting the queue's thread", errno);
  }
  q.running = 1;
  return undefined_value(env);
}

/* stop(): releases every held packet, unbinds the queue and ends the thread. */
static napi_value stop(napi_env env, napi_callback_info info) {
  (void)info;
  if (!q.running) return undefined_value(env);
  q.stopping = 1;
  uint64_t one = 1;
  if (write(q.wake_fd, &one, sizeof one) < 0) { /* the thread also wakes at its next packet or release */ }
  pthread_join(q.thread, NULL);
  nfq_destroy_queue(q.qh);
  nfq_close(q.h);
  close(q.wake_fd);
  if (q.raw_fd >= 0) close(q.raw_fd);
  free(q.flows);
  free(q.heap);
  q.flows = NULL;
  q.heap = NULL;
  q.heap_cap = 0;
  q.running = 0;
  return undefined_value(env);
}

/* stats(): per cohort, up then down, the cumulative packets, dropped, duplicated, reordered, overflowed. */
static napi_value stats(napi_env env, napi_callback_info info) {
  (void)info;
  size_t n = (size_t)q.cohorts * 2 * STATS;
  napi_value buffer, array;
  double *out;
  napi_create_arraybuffer(env, n * sizeof(double), (void **)&out, &buffer);
  for (int c = 0; c < q.cohorts; c++)
    for (int dir = 0; dir < 2; dir++)
      for (int s = 0; s < STATS; s++) out[(c * 2 + dir) * STATS + s] = (double)__atomic_load_n(&q.stats[c][dir][s], __ATOMIC_RELAXED);
  napi_create_typedarray(env, napi_float64_array, n, buffer, 0, &array);
  return array;
}

/* ---- nf_tables: the agent's own table ---- */

static int table_socket_open(void) {
  if (table_socket) return 0;
  table_socket = mnl_socket_open(NETLINK_NETFILTER);
  if (!table_socket) return errno;
  if (mnl_socket_bind(table_socket, 0, MNL_SOCKET_AUTOPID) < 0) {
    int err = errno;
    mnl_socket_close(table_socket);
    table_socket = NULL;
    return err;
  }
  struct timeval timeout = { .tv_sec = 2 };
  setsockopt(mnl_socket_get_fd(table_socket), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  table_seq = (uint32_t)time(NULL);
  return 0;
}

/* Sends a batch whose messages all ask for an ACK and waits for them; returns 0 or the first error. */
static int send_batch(struct mnl_nlmsg_batch *batch, int messages) {
  if (mnl_socket_sendto(table_socket, mnl_nlmsg_batch_head(batch), mnl_nlmsg_batch_size(batch)) < 0) return errno;
  char buf[MNL_SOCKET_BUFFER_SIZE];
  int acked = 0, error = 0;
  while (acked < messages) {
    ssize_t received = mnl_socket_recvfrom(table_socket, buf, sizeof buf);
    if (received < 0) return error ? error : errno == EAGAIN ? ETIMEDOUT : errno;
    int n = (int)received;
    for (struct nlmsghdr *nlh = (struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, n); nlh = mnl_nlmsg_next(nlh, &n)) {
      if (nlh->nlmsg_type != NLMSG_ERROR) continue;
      const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
      acked += 1;
      if (e->error && !error) error = -e->error;
    }
    /* A failed batch is aborted whole: what it acknowledged is all that comes. */
    if (error) {
      struct timeval brief = { .tv_usec = 100000 };
      setsockopt(mnl_socket_get_fd(table_socket), SOL_SOCKET, SO_RCVTIMEO, &brief, sizeof brief);
      while (mnl_socket_recvfrom(table_socket, buf, sizeof buf) > 0) {
      }
      struct timeval normal = { .tv_sec = 2 };
      setsockopt(mnl_socket_get_fd(table_socket), SOL_SOCKET, SO_RCVTIMEO, &normal, sizeof normal);
      return error;
    }
  }
  return 0;
}

static void add_expr(struct nftnl_rule *rule, struct nftnl_expr *expr) {
  nftnl_rule_add_expr(rule, expr);
}

/* `meta mark != mark ip {saddr|daddr} & mask == net` then the queue (native, or the xtables NFQUEUE target). */
static struct nftnl_rule *queue_rule(const char *table, const char *chain, uint32_t offset, uint32_t net, uint32_t mask, uint32_t queue_num, uint32_t mark, bool compat) {
  struct nftnl_rule *rule = nftnl_rule_alloc();
  nftnl_rule_set_str(rule, NFTNL_RULE_TABLE, table);
  nftnl_rule_set_str(rule, NFTNL_RULE_CHAIN, chain);
  nftnl_rule_set_u32(rule, NFTNL_RULE_FAMILY, NFPROTO_IPV4);
  struct nftnl_expr *e = nftnl_expr_alloc("meta");
  nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, NFT_META_MARK);
  nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, NFT_REG_1);
  add_expr(rule, e);
  e = nftnl_expr_alloc("cmp");
  nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
  nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, NFT_CMP_NEQ);
  nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, &mark, sizeof mark);
  add_expr(rule, e);
  e = nftnl_expr_alloc("payload");
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, NFT_PAYLOAD_NETWORK_HEADER);
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, offset);
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, 4);
  add_expr(rule, e);
  uint32_t mask_be = htonl(mask), net_be = htonl(net & mask), zero = 0;
  e = nftnl_expr_alloc("bitwise");
  nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
  nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
  nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, 4);
  nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, &mask_be, 4);
  nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, &zero, 4);
  add_expr(rule, e);
  e = nftnl_expr_alloc("cmp");
  nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
  nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, NFT_CMP_EQ);
  nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, &net_be, 4);
  add_expr(rule, e);
  if (compat) {
    /* Kernels built without nft's own queue expression (NFT_QUEUE) still have xtables' NFQUEUE through nft_compat. */
    struct xt_NFQ_info_v3 target = { .queuenum = (uint16_t)queue_num, .queues_total = 1, .flags = NFQ_FLAG_BYPASS };
    e = nftnl_expr_alloc("target");
    nftnl_expr_set_str(e, NFTNL_EXPR_TG_NAME, "NFQUEUE");
    nftnl_expr_set_u32(e, NFTNL_EXPR_TG_REV, 3);
    void *info = malloc(sizeof target);
    memcpy(info, &target, sizeof target);
    nftnl_expr_set(e, NFTNL_EXPR_TG_INFO, info, sizeof target);
  } else {
    e = nftnl_expr_alloc("queue");
    nftnl_expr_set_u16(e, NFTNL_EXPR_QUEUE_NUM, (uint16_t)queue_num);
    nftnl_expr_set_u16(e, NFTNL_EXPR_QUEUE_TOTAL, 1);
    nftnl_expr_set_u16(e, NFTNL_EXPR_QUEUE_FLAGS, NFT_QUEUE_FLAG_BYPASS);
  }
  add_expr(rule, e);
  return rule;
}

static struct nftnl_chain *base_chain(const char *table, const char *name, uint32_t hook) {
  struct nftnl_chain *chain = nftnl_chain_alloc();
  nftnl_chain_set_str(chain, NFTNL_CHAIN_TABLE, table);
  nftnl_chain_set_str(chain, NFTNL_CHAIN_NAME, name);
  nftnl_chain_set_str(chain, NFTNL_CHAIN_TYPE, "filter");
  nftnl_chain_set_u32(chain, NFTNL_CHAIN_HOOKNUM, hook);
  nftnl_chain_set_s32(chain, NFTNL_CHAIN_PRIO, 0);
  nftnl_chain_set_u32(chain, NFTNL_CHAIN_POLICY, NF_ACCEPT);
  return chain;
}

#define NEXT_MSG(type, flags) \
  nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(batch), (type), NFPROTO_IPV4, (flags) | NLM_F_ACK, table_seq++)

static int build_table(const char *name, uint32_t queue_num, uint32_t mark, const uint32_t *matches, size_t match_count, bool owner, bool compat) {
  static char buf[1 << 18];
  struct mnl_nlmsg_batch *batch = mnl_nlmsg_batch_start(buf, sizeof buf);
  int messages = 0;
  nftnl_batch_begin(mnl_nlmsg_batch_current(batch), table_seq++);
  mnl_nlmsg_batch_next(batch);
  struct nftnl_table *table = nftnl_table_alloc();
  nftnl_table_set_str(table, NFTNL_TABLE_NAME, name);
  if (owner) nftnl_table_set_u32(table, NFTNL_TABLE_FLAGS, NFT_TABLE_F_OWNER);
  nftnl_table_nlmsg_build_payload(NEXT_MSG(NFT_MSG_NEWTABLE, NLM_F_CREATE | NLM_F_EXCL), table);
  mnl_nlmsg_batch_next(batch);
  messages++;
  nftnl_table_free(table);
  struct nftnl_chain *up = base_chain(name, "up", NF_INET_LOCAL_OUT), *down = base_chain(name, "down", NF_INET_PRE_ROUTING);
  nftnl_chain_nlmsg_build_payload(NEXT_MSG(NFT_MSG_NEWCHAIN, NLM_F_CREATE), up);
  mnl_nlmsg_batch_next(batch);
  nftnl_chain_nlmsg_build_payload(NEXT_MSG(NFT_MSG_NEWCHAIN, NLM_F_CREATE), down);
  mnl_nlmsg_batch_next(batch);
  messages += 2;
  nftnl_chain_free(up);
  nftnl_chain_free(down);
  for (size_t i = 0; i + 3 < match_count; i += 4) {
    uint32_t net = matches[i], mask = matches[i + 1];
    for (int dir = 0; dir < 2; dir++) {
      if (!matches[i + 2 + dir]) continue;
      struct nftnl_rule *rule = queue_rule(name, dir == 0 ? "up" : "down", dir == 0 ? 12 : 16, net, mask, queue_num, mark, compat);
      nftnl_rule_nlmsg_build_payload(NEXT_MSG(NFT_MSG_NEWRULE, NLM_F_CREATE | NLM_F_APPEND), rule);
      mnl_nlmsg_batch_next(batch);
      messages++;
      nftnl_rule_free(rule);
    }
  }
  nftnl_batch_end(mnl_nlmsg_batch_current(batch), table_seq++);
  mnl_nlmsg_batch_next(batch);
  int err = send_batch(batch, messages);
  mnl_nlmsg_batch_stop(batch);
  return err;
}

/*
 * createTable(name, queue, mark, matches: Uint32Array of [net, mask, up, down]..., owned = true): the table, its two
 * chains and a rule per address range and direction. Owned by this process where the kernel has owner tables (and
 * `owned` is not false: a test leaves one behind as a killed agent on an older kernel would); returns
 * { owner, compat } saying how it was made.
 */
static napi_value create_table(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  char name[64];
  size_t name_len;
  napi_get_value_string_utf8(env, argv[0], name, sizeof name, &name_len);
  uint32_t queue_num, mark;
  napi_get_value_uint32(env, argv[1], &queue_num);
  napi_get_value_uint32(env, argv[2], &mark);
  uint32_t *matches;
  size_t match_count;
  typed_array(env, argv[3], (void **)&matches, &match_count);
  int err = table_socket_open();
  if (err) return throw_error(env, "opening a netlink socket to nf_tables", err);
  bool owner = true, compat = false;
  if (argc >= 5) {
    napi_valuetype type;
    napi_typeof(env, argv[4], &type);
    if (type == napi_boolean) napi_get_value_bool(env, argv[4], &owner);
  }
  err = build_table(name, queue_num, mark, matches, match_count, owner, compat);
  /* No native queue expression: the xtables target. No owner tables (before Linux 5.12): a plain table. */
  if (err == ENOENT || err == EOPNOTSUPP) err = build_table(name, queue_num, mark, matches, match_count, owner, compat = true);
  if (owner && (err == EOPNOTSUPP || err == EINVAL)) err = build_table(name, queue_num, mark, matches, match_count, owner = false, compat);
  if (err) return throw_error(env, "creating the nf_tables table", err);
  napi_value result, value;
  napi_create_object(env, &result);
  napi_get_boolean(env, owner, &value);
  napi_set_named_property(env, result, "owner", value);
  napi_get_boolean(env, compat, &value);
  napi_set_named_property(env, result, "compat", value);
  return result;
}

/* deleteTable(name): true when deleted, false when there was none. */
static napi_value delete_table(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  char name[64];
  size_t name_len;
  napi_get_value_string_utf8(env, argv[0], name, sizeof name, &name_len);
  int err = table_socket_open();
  if (err) return throw_error(env, "opening a netlink socket to nf_tables", err);
  static char buf[8192];
  struct mnl_nlmsg_batch *batch = mnl_nlmsg_batch_start(buf, sizeof buf);
  nftnl_batch_begin(mnl_nlmsg_batch_current(batch), table_seq++);
  mnl_nlmsg_batch_next(batch);
  struct nftnl_table *table = nftnl_table_alloc();
  nftnl_table_set_str(table, NFTNL_TABLE_NAME, name);
  nftnl_table_nlmsg_build_payload(NEXT_MSG(NFT_MSG_DELTABLE, 0), table);
  mnl_nlmsg_batch_next(batch);
  nftnl_table_free(table);
  nftnl_batch_end(mnl_nlmsg_batch_current(batch), table_seq++);
  mnl_nlmsg_batch_next(batch);
  err = send_batch(batch, 1);
  mnl_nlmsg_batch_stop(batch);
  if (err && err != ENOENT) return throw_error(env, "deleting the nf_tables table", err);
  napi_value result;
  napi_get_boolean(env, err == 0, &result);
  return result;
}

static int table_name_cb(const struct nlmsghdr *nlh, void *data) {
  napi_env env = ((napi_env *)data)[0];
  napi_value array = ((napi_value *)data)[1];
  struct nftnl_table *table = nftnl_table_alloc();
  if (nftnl_table_nlmsg_parse(nlh, table) == 0) {
    const char *name = nftnl_table_get_str(table, NFTNL_TABLE_NAME);
    uint32_t length;
    napi_get_array_length(env, array, &length);
    napi_value value;
    napi_create_string_utf8(env, name ? name : "", NAPI_AUTO_LENGTH, &value);
    napi_set_element(env, array, length, value);
  }
  nftnl_table_free(table);
  return MNL_CB_OK;
}

/* listTables(): the names of the kernel's ip-family nf_tables tables. */
static napi_value list_tables(napi_env env, napi_callback_info info) {
  (void)info;
  int err = table_socket_open();
  if (err) return throw_error(env, "opening a netlink socket to nf_tables", err);
  char buf[MNL_SOCKET_BUFFER_SIZE];
  uint32_t seq = table_seq++;
  struct nlmsghdr *nlh = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETTABLE, NFPROTO_IPV4, NLM_F_DUMP, seq);
  if (mnl_socket_sendto(table_socket, nlh, nlh->nlmsg_len) < 0) return throw_error(env, "listing nf_tables tables", errno);
  napi_value array;
  napi_create_array(env, &array);
  void *data[2] = { env, array };
  unsigned int portid = mnl_socket_get_portid(table_socket);
  for (;;) {
    ssize_t n = mnl_socket_recvfrom(table_socket, buf, sizeof buf);
    if (n < 0) return throw_error(env, "listing nf_tables tables", errno);
    int ret = mnl_cb_run(buf, (size_t)n, seq, portid, table_name_cb, data);
    if (ret < 0) return throw_error(env, "listing nf_tables tables", errno);
    if (ret == MNL_CB_STOP) break;
  }
  return array;
}

/* ---- TCP's own retransmissions of the cohorts' sockets (sock_diag, TCP_INFO) ---- */

/*
 * tcpRetransmits(ranges: Uint32Array of [net, mask, cohort]...): for every TCP socket of this host whose local
 * (source) address is in a range, [cookie low, cookie high, cohort, tcpi_total_retrans] in a Float64Array. The
 * kernel filters by address (an inet_diag bytecode: range 1 or range 2 or ...), so other sockets cost nothing.
 */
static napi_value tcp_retransmits(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  uint32_t *ranges;
  size_t range_words;
  typed_array(env, argv[0], (void **)&ranges, &range_words);
  size_t count = range_words / 3;
  if (count == 0 || count > 64) {
    napi_throw_range_error(env, NULL, "give 1 to 64 address ranges");
    return NULL;
  }
  enum { OP = sizeof(struct inet_diag_bc_op) + sizeof(struct inet_diag_hostcond) + 4 };
  struct {
    struct nlmsghdr nlh;
    struct inet_diag_req_v2 req;
    struct rtattr bytecode;
    uint8_t ops[64 * (OP + sizeof(struct inet_diag_bc_op))];
  } request;
  memset(&request, 0, sizeof request);
  /*
   * "range 1 or range 2 or ...", as ss compiles an or: each condition falls through to a jump to the end when it
   * matches (accepted), and skips that jump to the next condition when not; the last one's "not" goes past the end
   * (refused). The kernel's audit follows the fall-through chain, so every target is on it.
   */
  size_t length = count * OP + (count - 1) * sizeof(struct inet_diag_bc_op);
  uint8_t *at = request.ops;
  for (size_t i = 0; i < count; i++) {
    struct inet_diag_bc_op *op = (struct inet_diag_bc_op *)at;
    struct inet_diag_hostcond *cond = (struct inet_diag_hostcond *)(op + 1);
    uint32_t mask = ranges[i * 3 + 1], prefix = 0;
    while (prefix < 32 && (mask & (0x80000000u >> prefix))) prefix++;
    op->code = INET_DIAG_BC_S_COND;
    op->yes = OP;
    op->no = OP + sizeof(struct inet_diag_bc_op);
    cond->family = AF_INET;
    cond->prefix_len = (uint8_t)prefix;
    cond->port = -1;
    uint32_t net = htonl(ranges[i * 3] & mask);
    memcpy(cond->addr, &net, 4);
    at += OP;
    if (i + 1 == count) break;
    struct inet_diag_bc_op *jump = (struct inet_diag_bc_op *)at;
    at += sizeof *jump;
    jump->code = INET_DIAG_BC_JMP;
    jump->yes = sizeof *jump;
    jump->no = (uint16_t)(length - (size_t)(at - request.ops) + sizeof *jump);
  }
  request.bytecode.rta_type = INET_DIAG_REQ_BYTECODE;
  request.bytecode.rta_len = (unsigned short)RTA_LENGTH(length);
  request.req.sdiag_family = AF_INET;
  request.req.sdiag_protocol = IPPROTO_TCP;
  request.req.idiag_ext = 1 << (INET_DIAG_INFO - 1);
  /* Every state but LISTEN and TIME_WAIT (which keep no tcp_info). */
  request.req.idiag_states = 0xfff & ~((1u << 10) | (1u << 6));
  request.nlh.nlmsg_len = (uint32_t)(NLMSG_LENGTH(sizeof request.req) + RTA_ALIGN(request.bytecode.rta_len));
  request.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  request.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd < 0) return throw_error(env, "opening a sock_diag socket", errno);
  struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
  if (sendto(fd, &request, request.nlh.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0) {
    int err = errno;
    close(fd);
    return throw_error(env, "asking sock_diag for the cohorts' sockets", err);
  }
  size_t cap = 1024, n = 0;
  double *out = malloc(cap * 4 * sizeof(double));
  static char buf[1 << 16];
  bool done = false;
  int err = 0;
  while (!done && out) {
    ssize_t received = recv(fd, buf, sizeof buf, 0);
    if (received < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    int left = (int)received;
    for (struct nlmsghdr *nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, (unsigned)left); nlh = NLMSG_NEXT(nlh, left)) {
      if (nlh->nlmsg_type == NLMSG_DONE) {
        done = true;
        break;
      }
      if (nlh->nlmsg_type == NLMSG_ERROR) {
        err = -((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
        done = true;
        break;
      }
      struct inet_diag_msg *msg = NLMSG_DATA(nlh);
      uint32_t total_retrans = 0;
      bool found = false;
      int attrs = (int)(nlh->nlmsg_len - NLMSG_LENGTH(sizeof *msg));
      for (struct rtattr *attr = (struct rtattr *)(msg + 1); RTA_OK(attr, attrs); attr = RTA_NEXT(attr, attrs)) {
        if (attr->rta_type != INET_DIAG_INFO) continue;
        size_t have = RTA_PAYLOAD(attr);
        if (have >= offsetof(struct tcp_info, tcpi_total_retrans) + sizeof(uint32_t)) {
          memcpy(&total_retrans, (char *)RTA_DATA(attr) + offsetof(struct tcp_info, tcpi_total_retrans), sizeof total_retrans);
          found = true;
        }
      }
      if (!found) continue;
      uint32_t source = ntohl(msg->id.idiag_src[0]);
      int cohort = -1;
      for (size_t i = 0; i < count && cohort < 0; i++)
        if ((source & ranges[i * 3 + 1]) == (ranges[i * 3] & ranges[i * 3 + 1])) cohort = (int)ranges[i * 3 + 2];
      if (cohort < 0) continue;
      if (n == cap) {
        double *grown = realloc(out, cap * 2 * 4 * sizeof(double));
        if (!grown) break;
        out = grown;
        cap *= 2;
      }
      out[n * 4] = msg->id.idiag_cookie[0];
      out[n * 4 + 1] = msg->id.idiag_cookie[1];
      out[n * 4 + 2] = cohort;
      out[n * 4 + 3] = total_retrans;
      n++;
    }
  }
  close(fd);
  if (!out) return throw_error(env, "reading the cohorts' sockets", ENOMEM);
  if (err) {
    free(out);
    return throw_error(env, "reading the cohorts' sockets", err);
  }
  napi_value buffer, array;
  double *data;
  napi_create_arraybuffer(env, n * 4 * sizeof(double), (void **)&data, &buffer);
  if (n) memcpy(data, out, n * 4 * sizeof(double));
  free(out);
  napi_create_typedarray(env, napi_float64_array, n * 4, buffer, 0, &array);
  return array;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor methods[] = {
    { "start", NULL, start, NULL, NULL, NULL, napi_default, NULL },
    { "stop", NULL, stop, NULL, NULL, NULL, napi_default, NULL },
    { "stats", NULL, stats, NULL, NULL, NULL, napi_default, NULL },
    { "createTable", NULL, create_table, NULL, NULL, NULL, napi_default, NULL },
    { "deleteTable", NULL, delete_table, NULL, NULL, NULL, napi_default, NULL },
    { "listTables", NULL, list_tables, NULL, NULL, NULL, napi_default, NULL },
    { "tcpRetransmits", NULL, tcp_retransmits, NULL, NULL, NULL, napi_default, NULL },
  };
  napi_define_properties(env, exports, sizeof(methods) / sizeof(methods[0]), methods);
  return exports;
}
