// SPDX-License-Identifier: GPL-2.0
/* lib/serve: sonde serve's config, web config, query values and label escaping */
#include "unit.h"

#include "lib/serve/serve.h"

#include <crypt.h>
#include <errno.h>
#include <string.h>

#define PARSE(c, text, err) serve_config__parse(c, text, strlen(text), err, sizeof(err))

TEST(serve_config_full)
{
	struct serve_config c;
	char err[256] = "";
	const char *y = "listen: 0.0.0.0:9100\ncontinuous: 1m\nfreq: 19\nlabel_limit: 5\nmax_profiles: 2\n"
			"events:\n  - context-switches\n  - name: syscalls:sys_enter_write\n    filter: comm == \"x\"\n";

	CHECK_INT(PARSE(&c, y, err), 0);
	CHECK_STR(c.listen, "0.0.0.0:9100");
	CHECK(c.continuous == 60);
	CHECK_INT(c.freq, 19);
	CHECK_INT(c.label_limit, 5);
	CHECK_INT(c.max_profiles, 2);
	CHECK_INT(c.nr_events, 2);
	CHECK_STR(c.events[0].name, "context-switches");
	CHECK(!c.events[0].filter);
	CHECK_STR(c.events[1].filter, "comm == \"x\"");
	serve_config__free(&c);
	CHECK_INT(PARSE(&c, "", err), 0);	/* an empty file: every default */
	CHECK_INT(c.nr_events, 0);
}

TEST(serve_config_errors)
{
	struct serve_config c;
	char err[256];

	CHECK_INT(PARSE(&c, "events:\n  - name: a\n    colour: red\n", err), -EINVAL);
	CHECK_STR(err, "line 3, column 5: unknown key 'colour' in an event (name, filter)");
	CHECK_INT(PARSE(&c, "freq: 0\n", err), -EINVAL);
	CHECK_STR(err, "line 1, column 7: freq: '0' is not a rate from 1 to 1000 Hz");
	CHECK_INT(PARSE(&c, "continuous: 0.5s\n", err), -EINVAL);
	CHECK_INT(PARSE(&c, "listen: 9977\n", err), -EINVAL);
	CHECK_INT(PARSE(&c, "events: context-switches\n", err), -EINVAL);
	CHECK_STR(err, "line 1, column 9: 'events' is a list");
	CHECK_INT(PARSE(&c, "- a\n", err), -EINVAL);
	CHECK_INT(PARSE(&c, "a: [\n", err), -EINVAL);
	CHECK(!strncmp(err, "line 2, column 1: ", 18));
}

TEST(serve_query)
{
	struct serve_query q;
	char err[128];

	CHECK_INT(serve_query__parse(&q, NULL, NULL, err, sizeof(err)), 0);
	CHECK_INT(q.seconds, 30);
	CHECK_INT(q.pid, 0);
	CHECK_INT(serve_query__parse(&q, "5", "123", err, sizeof(err)), 0);
	CHECK_INT(q.seconds, 5);
	CHECK_INT(q.pid, 123);
	CHECK_INT(serve_query__parse(&q, "301", NULL, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "seconds=301: not a whole number of seconds from 1 to 300");
	CHECK_INT(serve_query__parse(&q, "1.5", NULL, err, sizeof(err)), -EINVAL);
	CHECK_INT(serve_query__parse(&q, " 5", NULL, err, sizeof(err)), -EINVAL);
	CHECK_INT(serve_query__parse(&q, "5", "0", err, sizeof(err)), -EINVAL);
	CHECK_INT(serve_query__parse(&q, "5", "99999999999", err, sizeof(err)), -EINVAL);
}

TEST(serve_durations_and_addresses)
{
	double d;
	char host[64];
	uint16_t port;

	CHECK(!serve__parse_duration("10s", &d) && d == 10);
	CHECK(!serve__parse_duration("500ms", &d) && d == 0.5);
	CHECK(!serve__parse_duration("2m", &d) && d == 120);
	CHECK(serve__parse_duration("10x", &d));
	CHECK(serve__parse_duration("-1s", &d));
	CHECK(serve__parse_duration("nan", &d));
	CHECK(!serve__parse_listen("127.0.0.1:9977", host, sizeof(host), &port) && port == 9977);
	CHECK_STR(host, "127.0.0.1");
	CHECK(!serve__parse_listen(":80", host, sizeof(host), &port) && !host[0] && port == 80);
	CHECK(serve__parse_listen("a:65536", host, sizeof(host), &port));
	CHECK(serve__parse_listen("a:", host, sizeof(host), &port));
	CHECK(serve__parse_listen("a b:1", host, sizeof(host), &port));
	CHECK(!serve__parse_listen("[::1]:9977", host, sizeof(host), &port) && port == 9977);
	CHECK_STR(host, "::1");
	CHECK(!serve__parse_listen("[::]:80", host, sizeof(host), &port) && port == 80);
	CHECK_STR(host, "::");
	CHECK(serve__parse_listen("[::1:80", host, sizeof(host), &port));
	CHECK(serve__parse_listen("[]:80", host, sizeof(host), &port));
	CHECK(serve__parse_listen("[1.2.3.4]:80", host, sizeof(host), &port));
	CHECK(serve__parse_listen("::1:80", host, sizeof(host), &port));
}

TEST(serve_config_probes)
{
	struct serve_config c;
	char err[256];
	const char *ok = "probes:\n"
			 "  - name: reads\n"
			 "    program: 'tracepoint:syscalls:sys_enter_read { @[comm] = count(); }'\n"
			 "    labels:\n"
			 "      '@bytes': [comm, fd]\n"
			 "  - name: f\n"
			 "    file: x.bt\n";

	CHECK(!PARSE(&c, ok, err));
	CHECK(c.nr_probes == 2);
	CHECK_STR(c.probes[0].name, "reads");
	CHECK(c.probes[0].program && strstr(c.probes[0].program, "count()"));
	CHECK(c.probes[0].nr_labels == 1 && c.probes[0].labels[0].n == 2);
	CHECK_STR(c.probes[0].labels[0].map, "bytes");
	CHECK_STR(c.probes[0].labels[0].names[1], "fd");
	CHECK_STR(c.probes[1].file, "x.bt");
	serve_config__free(&c);
	CHECK(PARSE(&c, "probes:\n  - name: a\n", err) && strstr(err, "either program or file"));
	CHECK(PARSE(&c, "probes:\n  - name: 1a\n    file: x\n", err) && strstr(err, "line 2, column 11"));
	CHECK(PARSE(&c, "probes:\n  - {name: a, file: x, program: y}\n", err));
	CHECK(PARSE(&c, "probes:\n  - {name: a, file: x}\n  - {name: a, file: y}\n", err) && strstr(err, "two probes"));
	CHECK(PARSE(&c, "probes:\n  - {name: a, file: x, labels: {m: [le]}}\n", err) && strstr(err, "label name"));
	CHECK(PARSE(&c, "probes:\n  - {name: a, file: x, colour: red}\n", err) && strstr(err, "unknown key"));
}

TEST(serve_label_escape)
{
	char out[32];

	serve__label_escape(out, sizeof(out), "a\"b\\c\nd");
	CHECK_STR(out, "a\\\"b\\\\c\\nd");
	serve__label_escape(out, 6, "abcdefgh");	/* cut, still terminated */
	CHECK(strlen(out) < 6);
}

TEST(serve_web_config)
{
	struct serve_web w;
	char err[256], yaml[512];
	struct crypt_data cd = { 0 };
	const char *h = crypt_r("s3cret", "$2b$05$abcdefghijklmnopqrstuu", &cd);

	CHECK(h && !strncmp(h, "$2b$05$", 7));
	snprintf(yaml, sizeof(yaml), "basic_auth_users:\n  alice: %s\n", h);
	CHECK_INT(serve_web__parse(&w, yaml, strlen(yaml), ".", err, sizeof(err)), 0);
	CHECK_INT(w.nr_users, 1);
	CHECK(serve_web__check(&w, "alice", "s3cret"));
	CHECK(!serve_web__check(&w, "alice", "s3cret "));
	CHECK(!serve_web__check(&w, "bob", "s3cret"));
	CHECK(!serve_web__check(&w, NULL, NULL));
	serve_web__free(&w);
	CHECK_INT(serve_web__parse(&w, "basic_auth_users:\n  alice: plain\n", 33, ".", err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "bcrypt"));
	snprintf(yaml, sizeof(yaml), "tls_server_config:\n  cert_file: /nonexistent/c.pem\n  key_file: k.pem\n");
	CHECK_INT(serve_web__parse(&w, yaml, strlen(yaml), ".", err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "cannot open '/nonexistent/c.pem': No such file or directory");
}
