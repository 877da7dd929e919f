#include "textflag.h"

// func readFSBase() uint64
TEXT ·readFSBase(SB), NOSPLIT, $0-8
	// rdfsbase rax
	BYTE $0xF3; BYTE $0x48; BYTE $0x0F; BYTE $0xAE; BYTE $0xC0
	MOVQ AX, ret+0(FP)
	RET
