/* d10_sigrtmin4_kill: another process sends SIGRTMIN+4 to a program that left
 * it at SIG_DFL: the kernel's default action kills it (issue 28 defect 10:
 * under fold, whose sampling signal it is, the signal was swallowed).
 *
 * diff: expect-status=signal SIGRTMIN+4
 */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

int main(void)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		kill(parent, SIGRTMIN + 4);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	spin_ms(300);
	printf("survived SIGRTMIN+4\n");
	return 0;
}
