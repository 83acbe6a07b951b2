/* TCP's own retransmissions on the network cohorts' sockets, from TCP_INFO through sock_diag (throng_netq.c). */
#define _GNU_SOURCE
#include "netq.h"
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- TCP's own retransmissions of the cohorts' sockets (sock_diag, TCP_INFO) ---- */

/*
 * tcpRetransmits(ranges: Uint32Array of [net, mask, cohort]...): for every TCP socket of this host whose local
 * (source) address is in a range, [cookie low, cookie high, cohort, tcpi_total_retrans] in a Float64Array. The
 * kernel filters by address (an inet_diag bytecode: range 1 or range 2 or ...), so other sockets cost nothing.
 */
napi_value netq_tcp_retransmits(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  uint32_t *ranges;
  size_t range_words;
  netq_typed_array(env, argv[0], (void **)&ranges, &range_words);
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
  if (fd < 0) return netq_throw(env, "opening a sock_diag socket", errno);
  struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
  if (sendto(fd, &request, request.nlh.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0) {
    int err = errno;
    close(fd);
    return netq_throw(env, "asking sock_diag for the cohorts' sockets", err);
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
  if (!out) return netq_throw(env, "reading the cohorts' sockets", ENOMEM);
  if (err) {
    free(out);
    return netq_throw(env, "reading the cohorts' sockets", err);
  }
  napi_value buffer, array;
  double *data;
  napi_create_arraybuffer(env, n * 4 * sizeof(double), (void **)&data, &buffer);
  if (n) memcpy(data, out, n * 4 * sizeof(double));
  free(out);
  napi_create_typedarray(env, napi_float64_array, n * 4, buffer, 0, &array);
  return array;
}
