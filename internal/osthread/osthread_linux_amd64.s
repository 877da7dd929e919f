#include "textflag.h"

// func readFSBase() uint64
//
// RDFSBASE RAX, encoded F3 48 0F AE C0 (the assembler has no mnemonic).
TEXT ·readFSBase(SB), NOSPLIT, $0-8
	BYTE $0xF3; BYTE $0x48; BYTE $0x0F; BYTE $0xAE; BYTE $0xC0
	MOVQ AX, ret+0(FP)
	RET
