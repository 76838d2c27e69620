// Macros shared by the WebAssembly (Go wasm assembler) kernels of ops/...:
// #include "../internal/wasmasm/wasm.h" (or "../../internal/…") after
// textflag.h. Registers R0…R15 are i64 wasm locals, V0…V15 v128.

// ADDI and SUBI add or subtract the constant n to or from the i64 local reg.
#define ADDI(reg, n) Get reg; I64Const $n; I64Add; Set reg
#define SUBI(reg, n) Get reg; I64Const $n; I64Sub; Set reg

// SHLI shifts the i64 local reg left by n bits (a count of floats or
// vectors into bytes).
#define SHLI(reg, n) Get reg; I64Const $n; I64Shl; Set reg

// BREAKZ leaves a Block … Loop pair (from the Loop's body) when reg is 0.
#define BREAKZ(reg) Get reg; I64Eqz; BrIf $1

