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
 * jitter, duplicate. The table is made in netq_tables.c, and TCP's own retransmissions read in netq_diag.c.
 */
#define _GNU_SOURCE
#include "netq.h"
#include <arpa/inet.h>
#include <errno.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <netinet/in.h>
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

napi_value netq_throw(napi_env env, const char *what, int err) {
  char message[256];
  snprintf(message, sizeof message, "%s: %s", what, strerror(err));
  napi_throw_error(env, err == EPERM ? "EPERM" : err == EBUSY || err == EEXIST ? "EBUSY" : NULL, message);
  return NULL;
}

napi_value netq_undefined(napi_env env) {
  napi_value value;
  napi_get_undefined(env, &value);
  return value;
}

void netq_typed_array(napi_env env, napi_value value, void **data, size_t *length) {
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
  netq_typed_array(env, argv[2], (void **)&links, &link_count);
  netq_typed_array(env, argv[3], (void **)&matches, &match_count);
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
  if (!q.flows) return netq_throw(env, "allocating the flow table", ENOMEM);
  q.h = nfq_open();
  if (!q.h) return netq_throw(env, "opening the netfilter queue socket (nfq_open)", errno);
  q.qh = nfq_create_queue(q.h, (uint16_t)queue_num, on_packet, NULL);
  if (!q.qh) {
    int err = errno ? errno : EBUSY;
    nfq_close(q.h);
    q.h = NULL;
    return netq_throw(env, "binding the netfilter queue", err);
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
    return netq_throw(env, "starting the queue's thread", errno);
  }
  q.running = 1;
  return netq_undefined(env);
}

/* stop(): releases every held packet, unbinds the queue and ends the thread. */
static napi_value stop(napi_env env, napi_callback_info info) {
  (void)info;
  if (!q.running) return netq_undefined(env);
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
  return netq_undefined(env);
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

NAPI_MODULE_INIT() {
  napi_property_descriptor methods[] = {
    { "start", NULL, start, NULL, NULL, NULL, napi_default, NULL },
    { "stop", NULL, stop, NULL, NULL, NULL, napi_default, NULL },
    { "stats", NULL, stats, NULL, NULL, NULL, napi_default, NULL },
    { "createTable", NULL, netq_create_table, NULL, NULL, NULL, napi_default, NULL },
    { "deleteTable", NULL, netq_delete_table, NULL, NULL, NULL, napi_default, NULL },
    { "listTables", NULL, netq_list_tables, NULL, NULL, NULL, napi_default, NULL },
    { "tcpRetransmits", NULL, netq_tcp_retransmits, NULL, NULL, NULL, napi_default, NULL },
  };
  napi_define_properties(env, exports, sizeof(methods) / sizeof(methods[0]), methods);
  return exports;
}
