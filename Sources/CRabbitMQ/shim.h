#ifndef REPARTO_CRABBITMQ_SHIM_H
#define REPARTO_CRABBITMQ_SHIM_H
#include <amqp.h>
#include <amqp_tcp_socket.h>
#include <amqp_framing.h>

/// `amqp_login` is variadic, which Swift cannot call: this wrapper fixes the
/// PLAIN mechanism's two arguments (user name, password).
static inline amqp_rpc_reply_t reparto_amqp_login_plain(
    amqp_connection_state_t state, const char *vhost, int channel_max,
    int frame_max, int heartbeat, const char *user, const char *password) {
    return amqp_login(state, vhost, channel_max, frame_max, heartbeat,
                      AMQP_SASL_METHOD_PLAIN, user, password);
}

/// Reads the method id of a decoded method frame (a union member Swift reaches awkwardly).
static inline amqp_method_number_t reparto_frame_method_id(const amqp_frame_t *frame) {
    return frame->payload.method.id;
}
static inline void *reparto_frame_method_decoded(const amqp_frame_t *frame) {
    return frame->payload.method.decoded;
}
#endif
