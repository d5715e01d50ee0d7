/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ia32grow: a 32-bit (ia32) program, no libc (Debian's amd64 hosts have
 * no 32-bit one to link with): mmap2s 2 anonymous pages through int $0x80,
 * writes both (2 page faults at _start's two stores) and exits 0.  Its
 * system calls take the ia32 entry points, which memtrace does not probe;
 * its faults do come through handle_mm_fault (tests/e2e/47-user-growth-cfi.sh).
 */
	.text
	.globl	_start
_start:
	movl	$192, %eax		/* mmap2(NULL, 8192, RW, PRIVATE|ANONYMOUS, -1, 0) */
	xorl	%ebx, %ebx
	movl	$8192, %ecx
	movl	$3, %edx
	movl	$0x22, %esi
	movl	$-1, %edi
	xorl	%ebp, %ebp
	int	$0x80
	cmpl	$-4095, %eax
	jae	1f
	movb	$1, (%eax)
	movb	$1, 4096(%eax)
	xorl	%ebx, %ebx
	movl	$1, %eax		/* exit(0) */
	int	$0x80
1:	movl	$1, %ebx
	movl	$1, %eax		/* exit(1) */
	int	$0x80
	.section .note.GNU-stack, "", @progbits
