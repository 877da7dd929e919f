#include "textflag.h"

// func rdfsbase() uintptr
//
// Reads the calling thread's FS base (RDFSBASE RAX, encoded F3 48 0F AE C0).
// Only called after fsbaseUsable reported AT_HWCAP2 bit 1 (FSGSBASE).
TEXT ·rdfsbase(SB), NOSPLIT, $0-8
	BYTE $0xF3; BYTE $0x48; BYTE $0x0F; BYTE $0xAE; BYTE $0xC0
	MOVQ AX, ret+0(FP)
	RET
