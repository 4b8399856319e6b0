#ifndef REPARTO_CRABBITMQ_SHIM_H
#define REPARTO_CRABBITMQ_SHIM_H
#include <stdlib.h>
#include <string.h>
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

/// Method ids Swift cannot import (they are cast expressions in amqp_framing.h).
static inline amqp_method_number_t reparto_method_basic_ack(void) { return AMQP_BASIC_ACK_METHOD; }
static inline amqp_method_number_t reparto_method_basic_nack(void) { return AMQP_BASIC_NACK_METHOD; }
static inline amqp_method_number_t reparto_method_basic_return(void) { return AMQP_BASIC_RETURN_METHOD; }
static inline amqp_method_number_t reparto_method_basic_cancel(void) { return AMQP_BASIC_CANCEL_METHOD; }
static inline amqp_method_number_t reparto_method_channel_close(void) { return AMQP_CHANNEL_CLOSE_METHOD; }
static inline amqp_method_number_t reparto_method_connection_close(void) { return AMQP_CONNECTION_CLOSE_METHOD; }

/// Builds basic properties; empty byte strings leave their field unset.
static inline amqp_basic_properties_t reparto_properties(
    uint8_t delivery_mode, uint8_t priority, amqp_bytes_t content_type,
    amqp_bytes_t message_id, amqp_bytes_t type, amqp_bytes_t expiration) {
    amqp_basic_properties_t p;
    memset(&p, 0, sizeof(p));
    p._flags = AMQP_BASIC_DELIVERY_MODE_FLAG | AMQP_BASIC_PRIORITY_FLAG;
    p.delivery_mode = delivery_mode;
    p.priority = priority;
    if (content_type.len > 0) { p._flags |= AMQP_BASIC_CONTENT_TYPE_FLAG; p.content_type = content_type; }
    if (message_id.len > 0) { p._flags |= AMQP_BASIC_MESSAGE_ID_FLAG; p.message_id = message_id; }
    if (type.len > 0) { p._flags |= AMQP_BASIC_TYPE_FLAG; p.type = type; }
    if (expiration.len > 0) { p._flags |= AMQP_BASIC_EXPIRATION_FLAG; p.expiration = expiration; }
    return p;
}

static inline int reparto_properties_has_type(const amqp_basic_properties_t *p) { return (p->_flags & AMQP_BASIC_TYPE_FLAG) != 0; }
static inline int reparto_properties_has_message_id(const amqp_basic_properties_t *p) { return (p->_flags & AMQP_BASIC_MESSAGE_ID_FLAG) != 0; }
static inline int reparto_properties_has_priority(const amqp_basic_properties_t *p) { return (p->_flags & AMQP_BASIC_PRIORITY_FLAG) != 0; }

/// Table entries for queue and exchange arguments. The key and value strings must outlive the call that uses them.
static inline amqp_table_entry_t reparto_table_entry_long(const char *key, int64_t value) {
    amqp_table_entry_t e;
    e.key = amqp_cstring_bytes(key);
    e.value.kind = AMQP_FIELD_KIND_I64;
    e.value.value.i64 = value;
    return e;
}
static inline amqp_table_entry_t reparto_table_entry_string(const char *key, const char *value) {
    amqp_table_entry_t e;
    e.key = amqp_cstring_bytes(key);
    e.value.kind = AMQP_FIELD_KIND_UTF8;
    e.value.value.bytes = amqp_cstring_bytes(value);
    return e;
}
#endif
