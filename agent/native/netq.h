/* Shared by the throng-netq addon's files (throng_netq.c: the queue; netq_tables.c: nf_tables; netq_diag.c: TCP_INFO). */
#ifndef THRONG_NETQ_H
#define THRONG_NETQ_H
#define NAPI_VERSION 8
#include <node_api.h>
#include <stddef.h>

/* Throws `what: strerror(err)` with a code JavaScript can tell apart (EPERM, EBUSY); returns NULL to return. */
napi_value netq_throw(napi_env env, const char *what, int err);
napi_value netq_undefined(napi_env env);
void netq_typed_array(napi_env env, napi_value value, void **data, size_t *length);

napi_value netq_create_table(napi_env env, napi_callback_info info);
napi_value netq_delete_table(napi_env env, napi_callback_info info);
napi_value netq_list_tables(napi_env env, napi_callback_info info);
napi_value netq_tcp_retransmits(napi_env env, napi_callback_info info);
#endif
