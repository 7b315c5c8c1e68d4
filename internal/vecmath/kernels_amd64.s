//go:build amd64 && !purego

#include "textflag.h"

// The kernels use AVX (VEX-encoded 256-bit) instructions only. Each performs
// the operations of its Go loop in vecmath.go/cos.go in the same order with
// the same roundings, so the results are bit-identical.

// func maxScaleAVX(out, p *float32, n, stride, q int, scale float32)
//
// VMAXPS a, b returns b unless a > b (also when either is NaN), the Go
// loop's "a later candidate wins only when strictly larger": the candidate
// goes in the first source, the running max in the second.
TEXT ·maxScaleAVX(SB), NOSPLIT, $0-44
	MOVQ         out+0(FP), DI
	MOVQ         p+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         stride+24(FP), DX
	MOVQ         q+32(FP), R8
	VBROADCASTSS scale+40(FP), Y15
	SHLQ         $2, CX             // n in bytes
	SHLQ         $2, DX             // stride in bytes
	XORQ         AX, AX             // byte offset of the current units

wide:	// 32 units at a time
	LEAQ    128(AX), R9
	CMPQ    R9, CX
	JGT     narrow
	LEAQ    (SI)(AX*1), R10
	VMOVUPS 0(R10), Y0
	VMOVUPS 32(R10), Y1
	VMOVUPS 64(R10), Y2
	VMOVUPS 96(R10), Y3
	MOVQ    R8, R11

wideCand:
	DECQ    R11
	JZ      wideStore
	ADDQ    DX, R10
	VMOVUPS 0(R10), Y4
	VMOVUPS 32(R10), Y5
	VMOVUPS 64(R10), Y6
	VMOVUPS 96(R10), Y7
	VMAXPS  Y0, Y4, Y0
	VMAXPS  Y1, Y5, Y1
	VMAXPS  Y2, Y6, Y2
	VMAXPS  Y3, Y7, Y3
	JMP     wideCand

wideStore:
	VMULPS  Y15, Y0, Y0
	VMULPS  Y15, Y1, Y1
	VMULPS  Y15, Y2, Y2
	VMULPS  Y15, Y3, Y3
	VMOVUPS Y0, 0(DI)(AX*1)
	VMOVUPS Y1, 32(DI)(AX*1)
	VMOVUPS Y2, 64(DI)(AX*1)
	VMOVUPS Y3, 96(DI)(AX*1)
	MOVQ    R9, AX
	JMP     wide

narrow:	// 8 units at a time
	LEAQ    32(AX), R9
	CMPQ    R9, CX
	JGT     done
	LEAQ    (SI)(AX*1), R10
	VMOVUPS 0(R10), Y0
	MOVQ    R8, R11

narrowCand:
	DECQ    R11
	JZ      narrowStore
	ADDQ    DX, R10
	VMOVUPS 0(R10), Y4
	VMAXPS  Y0, Y4, Y0
	JMP     narrowCand

narrowStore:
	VMULPS  Y15, Y0, Y0
	VMOVUPS Y0, 0(DI)(AX*1)
	MOVQ    R9, AX
	JMP     narrow

done:
	VZEROUPPER
	RET

// func cosAffineAVX(v, b *float32, n int, scale float64)
//
// Four values at a time, in float64: x = v + b; r = round(x/2π) half away
// from zero (trunc, then one more step away from zero where the dropped
// fraction is at least ½, which is exact); y = x − 2π·r; Horner in y²;
// times scale; rounded to float32.
TEXT ·cosAffineAVX(SB), NOSPLIT, $0-32
	MOVQ         v+0(FP), DI
	MOVQ         b+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD scale+24(FP), Y15
	VMOVUPD      invTwoPi<>(SB), Y14
	VMOVUPD      twoPi<>(SB), Y13
	VMOVUPD      half<>(SB), Y12
	VMOVUPD      signBit<>(SB), Y11
	VMOVUPD      one<>(SB), Y10
	SHLQ         $2, CX             // n in bytes
	XORQ         AX, AX

cosLoop:
	CMPQ      AX, CX
	JGE       cosDone
	VCVTPS2PD (DI)(AX*1), Y0
	VCVTPS2PD (SI)(AX*1), Y1
	VADDPD    Y1, Y0, Y0            // x
	VMULPD    Y14, Y0, Y1           // a = x·(1/2π)
	VROUNDPD  $3, Y1, Y2            // t = trunc(a)
	VSUBPD    Y2, Y1, Y3            // a − t, exact
	VANDNPD   Y3, Y11, Y3           // |a − t|
	VCMPPD    $0x1d, Y12, Y3, Y3    // |a − t| ≥ ½
	VANDPD    Y11, Y1, Y4           // sign of a
	VORPD     Y10, Y4, Y4           // ±1
	VANDPD    Y3, Y4, Y4            // ±1 where rounding away, else 0
	VADDPD    Y4, Y2, Y2            // r = round(a)
	VMULPD    Y13, Y2, Y2           // 2π·r
	VSUBPD    Y2, Y0, Y0            // y = x − 2π·r
	VMULPD    Y0, Y0, Y0            // z = y²
	VMOVUPD   cosCoef<>+0(SB), Y1
	VMULPD    Y0, Y1, Y1
	VADDPD    cosCoef<>+32(SB), Y1, Y1
	VMULPD    Y0, Y1, Y1
	VADDPD    cosCoef<>+64(SB), Y1, Y1
	VMULPD    Y0, Y1, Y1
	VADDPD    cosCoef<>+96(SB), Y1, Y1
	VMULPD    Y0, Y1, Y1
	VADDPD    cosCoef<>+128(SB), Y1, Y1
	VMULPD    Y0, Y1, Y1
	VADDPD    cosCoef<>+160(SB), Y1, Y1
	VMULPD    Y0, Y1, Y1
	VADDPD    cosCoef<>+192(SB), Y1, Y1
	VMULPD    Y0, Y1, Y1
	VADDPD    cosCoef<>+224(SB), Y1, Y1
	VMULPD    Y0, Y1, Y1
	VADDPD    cosCoef<>+256(SB), Y1, Y1
	VMULPD    Y0, Y1, Y1
	VADDPD    cosCoef<>+288(SB), Y1, Y1
	VMULPD    Y0, Y1, Y1
	VADDPD    cosCoef<>+320(SB), Y1, Y1
	VMULPD    Y15, Y1, Y1           // scale·cos
	VCVTPD2PSY Y1, X1
	VMOVUPS   X1, (DI)(AX*1)
	ADDQ      $16, AX
	JMP       cosLoop

cosDone:
	VZEROUPPER
	RET

// Constants, each repeated in the four lanes of a YMM register.
DATA cosCoef<>+0(SB)/8, $0x3c1e542ba4020225
DATA cosCoef<>+8(SB)/8, $0x3c1e542ba4020225
DATA cosCoef<>+16(SB)/8, $0x3c1e542ba4020225
DATA cosCoef<>+24(SB)/8, $0x3c1e542ba4020225
DATA cosCoef<>+32(SB)/8, $0xbca6827863b97d97
DATA cosCoef<>+40(SB)/8, $0xbca6827863b97d97
DATA cosCoef<>+48(SB)/8, $0xbca6827863b97d97
DATA cosCoef<>+56(SB)/8, $0xbca6827863b97d97
DATA cosCoef<>+64(SB)/8, $0x3d2ae7f3e733b81f
DATA cosCoef<>+72(SB)/8, $0x3d2ae7f3e733b81f
DATA cosCoef<>+80(SB)/8, $0x3d2ae7f3e733b81f
DATA cosCoef<>+88(SB)/8, $0x3d2ae7f3e733b81f
DATA cosCoef<>+96(SB)/8, $0xbda93974a8c07c9d
DATA cosCoef<>+104(SB)/8, $0xbda93974a8c07c9d
DATA cosCoef<>+112(SB)/8, $0xbda93974a8c07c9d
DATA cosCoef<>+120(SB)/8, $0xbda93974a8c07c9d
DATA cosCoef<>+128(SB)/8, $0x3e21eed8eff8d898
DATA cosCoef<>+136(SB)/8, $0x3e21eed8eff8d898
DATA cosCoef<>+144(SB)/8, $0x3e21eed8eff8d898
DATA cosCoef<>+152(SB)/8, $0x3e21eed8eff8d898
DATA cosCoef<>+160(SB)/8, $0xbe927e4fb7789f5c
DATA cosCoef<>+168(SB)/8, $0xbe927e4fb7789f5c
DATA cosCoef<>+176(SB)/8, $0xbe927e4fb7789f5c
DATA cosCoef<>+184(SB)/8, $0xbe927e4fb7789f5c
DATA cosCoef<>+192(SB)/8, $0x3efa01a01a01a01a
DATA cosCoef<>+200(SB)/8, $0x3efa01a01a01a01a
DATA cosCoef<>+208(SB)/8, $0x3efa01a01a01a01a
DATA cosCoef<>+216(SB)/8, $0x3efa01a01a01a01a
DATA cosCoef<>+224(SB)/8, $0xbf56c16c16c16c17
DATA cosCoef<>+232(SB)/8, $0xbf56c16c16c16c17
DATA cosCoef<>+240(SB)/8, $0xbf56c16c16c16c17
DATA cosCoef<>+248(SB)/8, $0xbf56c16c16c16c17
DATA cosCoef<>+256(SB)/8, $0x3fa5555555555555
DATA cosCoef<>+264(SB)/8, $0x3fa5555555555555
DATA cosCoef<>+272(SB)/8, $0x3fa5555555555555
DATA cosCoef<>+280(SB)/8, $0x3fa5555555555555
DATA cosCoef<>+288(SB)/8, $0xbfe0000000000000
DATA cosCoef<>+296(SB)/8, $0xbfe0000000000000
DATA cosCoef<>+304(SB)/8, $0xbfe0000000000000
DATA cosCoef<>+312(SB)/8, $0xbfe0000000000000
DATA cosCoef<>+320(SB)/8, $0x3ff0000000000000
DATA cosCoef<>+328(SB)/8, $0x3ff0000000000000
DATA cosCoef<>+336(SB)/8, $0x3ff0000000000000
DATA cosCoef<>+344(SB)/8, $0x3ff0000000000000
GLOBL cosCoef<>(SB), RODATA|NOPTR, $352
DATA twoPi<>+0(SB)/8, $0x401921fb54442d18
DATA twoPi<>+8(SB)/8, $0x401921fb54442d18
DATA twoPi<>+16(SB)/8, $0x401921fb54442d18
DATA twoPi<>+24(SB)/8, $0x401921fb54442d18
GLOBL twoPi<>(SB), RODATA|NOPTR, $32
DATA invTwoPi<>+0(SB)/8, $0x3fc45f306dc9c883
DATA invTwoPi<>+8(SB)/8, $0x3fc45f306dc9c883
DATA invTwoPi<>+16(SB)/8, $0x3fc45f306dc9c883
DATA invTwoPi<>+24(SB)/8, $0x3fc45f306dc9c883
GLOBL invTwoPi<>(SB), RODATA|NOPTR, $32
DATA half<>+0(SB)/8, $0x3fe0000000000000
DATA half<>+8(SB)/8, $0x3fe0000000000000
DATA half<>+16(SB)/8, $0x3fe0000000000000
DATA half<>+24(SB)/8, $0x3fe0000000000000
GLOBL half<>(SB), RODATA|NOPTR, $32
DATA one<>+0(SB)/8, $0x3ff0000000000000
DATA one<>+8(SB)/8, $0x3ff0000000000000
DATA one<>+16(SB)/8, $0x3ff0000000000000
DATA one<>+24(SB)/8, $0x3ff0000000000000
GLOBL one<>(SB), RODATA|NOPTR, $32
DATA signBit<>+0(SB)/8, $0x8000000000000000
DATA signBit<>+8(SB)/8, $0x8000000000000000
DATA signBit<>+16(SB)/8, $0x8000000000000000
DATA signBit<>+24(SB)/8, $0x8000000000000000
GLOBL signBit<>(SB), RODATA|NOPTR, $32

// func sparseRowDotsAVX(out, w *float32, stride int, idx *int32, val *float32, nnz, n int)
//
// For 64 columns at a time (then 8), eight accumulators start at zero and
// every nonzero adds its value times the 64 floats of its row of w: a
// product (VMULPS) rounded, then a sum (VADDPS), as the Go loop does; no
// fused multiply-add, which would round once and differ from it.
TEXT ·sparseRowDotsAVX(SB), NOSPLIT, $0-56
	MOVQ out+0(FP), DI
	MOVQ w+8(FP), SI
	MOVQ stride+16(FP), DX
	MOVQ idx+24(FP), R8
	MOVQ val+32(FP), R9
	MOVQ nnz+40(FP), R10
	MOVQ n+48(FP), CX
	SHLQ $2, DX                // stride in bytes
	SHLQ $2, CX                // n in bytes
	XORQ AX, AX                // byte offset of the current columns

cols64:
	LEAQ   256(AX), R11
	CMPQ   R11, CX
	JGT    cols8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ   BX, BX              // nonzero index

nz64:
	MOVLQSX      (R8)(BX*4), R12
	IMULQ        DX, R12
	ADDQ         SI, R12
	ADDQ         AX, R12       // &w[idx[k]*stride + c]
	VBROADCASTSS (R9)(BX*4), Y15
	VMULPS       0(R12), Y15, Y8
	VMULPS       32(R12), Y15, Y9
	VMULPS       64(R12), Y15, Y10
	VMULPS       96(R12), Y15, Y11
	VADDPS       Y8, Y0, Y0
	VADDPS       Y9, Y1, Y1
	VADDPS       Y10, Y2, Y2
	VADDPS       Y11, Y3, Y3
	VMULPS       128(R12), Y15, Y12
	VMULPS       160(R12), Y15, Y13
	VMULPS       192(R12), Y15, Y14
	VMULPS       224(R12), Y15, Y8
	VADDPS       Y12, Y4, Y4
	VADDPS       Y13, Y5, Y5
	VADDPS       Y14, Y6, Y6
	VADDPS       Y8, Y7, Y7
	INCQ         BX
	CMPQ         BX, R10
	JLT          nz64
	VMOVUPS      Y0, 0(DI)(AX*1)
	VMOVUPS      Y1, 32(DI)(AX*1)
	VMOVUPS      Y2, 64(DI)(AX*1)
	VMOVUPS      Y3, 96(DI)(AX*1)
	VMOVUPS      Y4, 128(DI)(AX*1)
	VMOVUPS      Y5, 160(DI)(AX*1)
	VMOVUPS      Y6, 192(DI)(AX*1)
	VMOVUPS      Y7, 224(DI)(AX*1)
	MOVQ         R11, AX
	JMP          cols64

cols8:
	LEAQ   32(AX), R11
	CMPQ   R11, CX
	JGT    done
	VXORPS Y0, Y0, Y0
	XORQ   BX, BX

nz8:
	MOVLQSX      (R8)(BX*4), R12
	IMULQ        DX, R12
	ADDQ         SI, R12
	ADDQ         AX, R12
	VBROADCASTSS (R9)(BX*4), Y15
	VMULPS       0(R12), Y15, Y8
	VADDPS       Y8, Y0, Y0
	INCQ         BX
	CMPQ         BX, R10
	JLT          nz8
	VMOVUPS      Y0, 0(DI)(AX*1)
	MOVQ         R11, AX
	JMP          cols8

done:
	VZEROUPPER
	RET
