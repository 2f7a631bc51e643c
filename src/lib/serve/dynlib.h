/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dynlib.h - the functions lib/serve calls in libmicrohttpd, libyaml and
 * libcrypt, as pointers that dynlib.c fills with dlsym() when serve first
 * needs each library (serve__libs_load in serve.h). Only `sonde serve`
 * uses these libraries: linked, the dynamic loader would map them (and
 * gnutls and its dozen libraries) at the start of every command.
 *
 * The -dev headers still give the types and constants, and the pointers
 * take their types from the functions' own declarations (typeof), so a
 * call through dl_NAME is checked as a call of NAME is. A pointer is NULL
 * until its library is loaded: call it only after serve__libs_load
 * succeeded for that library.
 */
#ifndef SONDE_SERVE_DYNLIB_H
#define SONDE_SERVE_DYNLIB_H

#include <crypt.h>
#include <microhttpd.h>
#include <yaml.h>

/* each library's functions, one X(name) each: dynlib.c defines and fills dl_name */
#define DYNLIB_HTTP_FUNCTIONS(X) \
	X(MHD_start_daemon) X(MHD_stop_daemon) X(MHD_get_daemon_info) \
	X(MHD_create_response_from_buffer) X(MHD_add_response_header) X(MHD_queue_response) \
	X(MHD_destroy_response) X(MHD_lookup_connection_value) \
	X(MHD_basic_auth_get_username_password) X(MHD_queue_basic_auth_fail_response) X(MHD_free) \
	X(MHD_get_version) X(MHD_is_feature_supported)
#define DYNLIB_YAML_FUNCTIONS(X) \
	X(yaml_parser_initialize) X(yaml_parser_set_input_string) X(yaml_parser_load) \
	X(yaml_parser_delete) X(yaml_document_get_root_node) X(yaml_document_get_node) \
	X(yaml_document_delete) X(yaml_get_version_string)
#define DYNLIB_CRYPT_FUNCTIONS(X) X(crypt_r)

#define DYNLIB_DECLARE(name) extern typeof(name) *dl_##name;
DYNLIB_HTTP_FUNCTIONS(DYNLIB_DECLARE)	/* libmicrohttpd.so.12: SERVE_LIB_HTTP */
DYNLIB_YAML_FUNCTIONS(DYNLIB_DECLARE)	/* libyaml-0.so.2: SERVE_LIB_YAML */
DYNLIB_CRYPT_FUNCTIONS(DYNLIB_DECLARE)	/* libcrypt.so.1: SERVE_LIB_CRYPT */
#undef DYNLIB_DECLARE

#endif
