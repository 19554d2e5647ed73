/* d06_seccomp_strict: after its setup the program enters strict seccomp
 * (read, write, _exit and sigreturn only), computes 300 ms and writes its
 * result (issue 28 defect 6: fold's sample handler made a system call the
 * sandbox denies, and the kernel killed the program).
 *
 * diff: expect-status=exit 0
 * diff: expect-stdout=^done$
 * diff: traces=any
 */
#include <linux/seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "common.h"

int main(void)
{
	printf("start\n");
	fflush(stdout);
	/* Calibrate outside the sandbox: clock_gettime is a vDSO call, but
	 * stay clear of anything that might fall back to a system call. */
	double t = now_s();
	work_n(10000000);
	double per = (now_s() - t) / 10000000;
	uint64_t n = (uint64_t)(0.3 / (per > 0 ? per : 1e-9));
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT))
		return perror("seccomp"), 1;
	work_n(n);
	static const char done[] = "done\n";
	if (write(1, done, sizeof done - 1) < 0)
		syscall(SYS_exit, 2);
	syscall(SYS_exit, 0);
	return 0;
}
