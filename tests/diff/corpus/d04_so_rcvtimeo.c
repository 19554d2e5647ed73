/* d04_so_rcvtimeo: recv() and accept() on sockets with SO_RCVTIMEO, send()
 * with SO_SNDTIMEO: each times out with EAGAIN after 0.3 s (issue 28 defect
 * 4: under fold they returned EINTR at once; SA_RESTART does not restart them).
 *
 * diff: expect-status=exit 0
 * diff: expect-stdout=^recv: rc=-1 EAGAIN waited: yes$
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "common.h"

static void report(const char *what, long rc, int err, double waited)
{
	printf("%s: rc=%ld %s waited: %s\n", what, rc, err == EAGAIN ? "EAGAIN" : strerror(err),
	       waited >= 0.28 ? "yes" : "no");
}

int main(void)
{
	struct timeval tv = {0, 300000};
	int sv[2];
	char buf[64];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return perror("socketpair"), 1;
	setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	double t = now_s();
	long rc = recv(sv[0], buf, sizeof buf, 0);
	report("recv", rc, errno, now_s() - t);

	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1))
		return perror("listen"), 1;
	setsockopt(l, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	t = now_s();
	rc = accept(l, NULL, NULL);
	report("accept", rc, errno, now_s() - t);

	/* Fill the send buffer, then one more send waits for its timeout. */
	setsockopt(sv[1], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	int small = 4096;
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
	static char big[1 << 16];
	long sent = 0;
	for (;;) {
		t = now_s();
		rc = send(sv[1], big, sizeof big, MSG_DONTWAIT);
		if (rc < 0)
			break;
		sent += rc;
	}
	t = now_s();
	rc = send(sv[1], big, sizeof big, 0);
	report("send", rc, errno, now_s() - t);
	return 0;
}
