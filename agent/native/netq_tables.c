/* The agent's own nf_tables table for the netfilter queue of network cohorts (throng_netq.c says how it is used). */
#define _GNU_SOURCE
#include "netq.h"
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/xt_NFQUEUE.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

static struct mnl_socket *table_socket; /* kept open: an owner table lives as long as it */
static uint32_t table_seq;

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
napi_value netq_create_table(napi_env env, napi_callback_info info) {
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
  netq_typed_array(env, argv[3], (void **)&matches, &match_count);
  int err = table_socket_open();
  if (err) return netq_throw(env, "opening a netlink socket to nf_tables", err);
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
  if (err) return netq_throw(env, "creating the nf_tables table", err);
  napi_value result, value;
  napi_create_object(env, &result);
  napi_get_boolean(env, owner, &value);
  napi_set_named_property(env, result, "owner", value);
  napi_get_boolean(env, compat, &value);
  napi_set_named_property(env, result, "compat", value);
  return result;
}

/* deleteTable(name): true when deleted, false when there was none. */
napi_value netq_delete_table(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  char name[64];
  size_t name_len;
  napi_get_value_string_utf8(env, argv[0], name, sizeof name, &name_len);
  int err = table_socket_open();
  if (err) return netq_throw(env, "opening a netlink socket to nf_tables", err);
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
  if (err && err != ENOENT) return netq_throw(env, "deleting the nf_tables table", err);
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
napi_value netq_list_tables(napi_env env, napi_callback_info info) {
  (void)info;
  int err = table_socket_open();
  if (err) return netq_throw(env, "opening a netlink socket to nf_tables", err);
  char buf[MNL_SOCKET_BUFFER_SIZE];
  uint32_t seq = table_seq++;
  struct nlmsghdr *nlh = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETTABLE, NFPROTO_IPV4, NLM_F_DUMP, seq);
  if (mnl_socket_sendto(table_socket, nlh, nlh->nlmsg_len) < 0) return netq_throw(env, "listing nf_tables tables", errno);
  napi_value array;
  napi_create_array(env, &array);
  void *data[2] = { env, array };
  unsigned int portid = mnl_socket_get_portid(table_socket);
  for (;;) {
    ssize_t n = mnl_socket_recvfrom(table_socket, buf, sizeof buf);
    if (n < 0) return netq_throw(env, "listing nf_tables tables", errno);
    int ret = mnl_cb_run(buf, (size_t)n, seq, portid, table_name_cb, data);
    if (ret < 0) return netq_throw(env, "listing nf_tables tables", errno);
    if (ret == MNL_CB_STOP) break;
  }
  return array;
}
