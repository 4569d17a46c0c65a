// SPDX-License-Identifier: GPL-2.0
/*
 * feedsrv: the HTTP server the feed tests fetch from, one that can misbehave on
 * purpose. GET /NAME serves DIR/NAME; how is read from DIR/NAME.mode at each request
 * (first word; "ok" when there is none):
 *
 *   ok       200 with Content-Length, ETag and Last-Modified; 304 when If-None-Match
 *            or If-Modified-Since names the file as it is
 *   plain    200 with neither validator (no conditional request is possible)
 *   lastmod  200 with Last-Modified and no ETag; 304 when If-Modified-Since names it
 *   nolength 200 with no Content-Length (HTTP/1.0): the whole body, then close
 *   500      500 Internal Server Error
 *   drop     the headers with the whole Content-Length, half the body, then close
 *   dropraw  no Content-Length (HTTP/1.0): half the body, then close
 *   stall    the headers, then nothing until the client gives up
 *
 * Each request is logged to LOG as "NAME MODE CODE inm=... ims=...", and served by a
 * child of its own; it serves until killed, or SECONDS (default 600) at most. For tests only: it
 * binds the address given, which the tests keep inside their own namespace.
 *
 *   feedsrv ADDR PORT DIR LOG [SECONDS]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *dir;
static FILE *reqlog;

static void header(const char *req, const char *name, char *out, size_t size)
{
	const char *p = req;
	size_t nl = strlen(name), n;

	out[0] = '\0';
	while ((p = strchr(p, '\n'))) {
		p++;
		if (!strncasecmp(p, name, nl) && p[nl] == ':') {
			p += nl + 1;
			while (*p == ' ')
				p++;
			n = strcspn(p, "\r\n");
			n = n < size ? n : size - 1;
			memcpy(out, p, n);
			out[n] = '\0';
			return;
		}
	}
}

static void put(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w <= 0)
			return;
		p += w;
		len -= (size_t)w;
	}
}

static void serve(int fd)
{
	char req[8192], name[256], path[600], mode[32] = "ok", inm[128], ims[128];
	char etag[64], lm[64], head[512], *body = NULL;
	size_t got = 0, len = 0;
	struct stat st;
	struct tm tm;
	int code = 200, hl;
	FILE *f;

	req[0] = '\0';
	while (got < sizeof(req) - 1 && !strstr(req, "\r\n\r\n")) {
		ssize_t r = read(fd, req + got, sizeof(req) - 1 - got);

		if (r <= 0)
			return;
		got += (size_t)r;
		req[got] = '\0';
	}
	if (sscanf(req, "GET /%255[^ ?] ", name) != 1 || strchr(name, '/') || name[0] == '.') {
		put(fd, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", 47);
		return;
	}
	header(req, "If-None-Match", inm, sizeof(inm));
	header(req, "If-Modified-Since", ims, sizeof(ims));
	snprintf(path, sizeof(path), "%s/%s.mode", dir, name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%31s", mode) != 1)
			snprintf(mode, sizeof(mode), "ok");
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f || fstat(fileno(f), &st)) {
		code = 404;
	} else {
		body = malloc((size_t)st.st_size + 1);
		len = body ? fread(body, 1, (size_t)st.st_size, f) : 0;
	}
	if (f)
		fclose(f);
	snprintf(etag, sizeof(etag), "\"%llx-%llx\"", (unsigned long long)st.st_size,
		 (unsigned long long)st.st_mtim.tv_nsec ^ (unsigned long long)st.st_mtime);
	gmtime_r(&st.st_mtime, &tm);
	strftime(lm, sizeof(lm), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	if (code == 404)
		hl = snprintf(head, sizeof(head), "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
			      "Connection: close\r\n\r\n");
	else if (!strcmp(mode, "500"))
		code = 500, hl = snprintf(head, sizeof(head), "HTTP/1.1 500 Internal Server Error\r\n"
					 "Content-Length: 6\r\nConnection: close\r\n\r\noops\r\n");
	else if (!strcmp(mode, "ok") && ((inm[0] && !strcmp(inm, etag)) ||
					 (!inm[0] && ims[0] && !strcmp(ims, lm))))
		code = 304, hl = snprintf(head, sizeof(head), "HTTP/1.1 304 Not Modified\r\n"
					 "ETag: %s\r\nConnection: close\r\n\r\n", etag);
	else if (!strcmp(mode, "lastmod") && ims[0] && !strcmp(ims, lm))
		code = 304, hl = snprintf(head, sizeof(head), "HTTP/1.1 304 Not Modified\r\n"
					 "Connection: close\r\n\r\n");
	else if (!strcmp(mode, "lastmod"))
		hl = snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n"
			      "Last-Modified: %s\r\nConnection: close\r\n\r\n", len, lm);
	else if (!strcmp(mode, "ok"))
		hl = snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n"
			      "ETag: %s\r\nLast-Modified: %s\r\nConnection: close\r\n\r\n", len,
			      etag, lm);
	else if (!strcmp(mode, "dropraw") || !strcmp(mode, "nolength"))
		hl = snprintf(head, sizeof(head), "HTTP/1.0 200 OK\r\n\r\n");
	else
		hl = snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n"
			      "Connection: close\r\n\r\n", len);
	fprintf(reqlog, "%s %s %d inm=%s ims=%s\n", name, mode, code, inm, ims);
	fflush(reqlog);
	put(fd, head, (size_t)hl);
	if (code == 200 && !strcmp(mode, "stall"))
		sleep(30);
	else if (code == 200)
		put(fd, body, !strncmp(mode, "drop", 4) ? len / 2 : len);
	free(body);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int s, one = 1;

	if (argc < 5 || inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1) {
		fprintf(stderr, "usage: feedsrv ADDR PORT DIR LOG [SECONDS]\n");
		return 2;
	}
	sa.sin_port = htons((unsigned short)atoi(argv[2]));
	dir = argv[3];
	reqlog = fopen(argv[4], "a");
	alarm(argc > 5 ? (unsigned int)atoi(argv[5]) : 600);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_IGN);	/* children reaped by the kernel */
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!reqlog || s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, 16)) {
		perror("feedsrv");
		return 1;
	}
	printf("feedsrv: serving %s on %s:%s\n", dir, argv[1], argv[2]);
	fflush(stdout);
	for (;;) {
		int c = accept(s, NULL, NULL);

		if (c < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (!fork()) {
			close(s);
			alarm(40);
			serve(c);
			shutdown(c, SHUT_RDWR);
			_exit(0);
		}
		close(c);
	}
}
