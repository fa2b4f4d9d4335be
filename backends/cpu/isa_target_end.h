// Closes the instruction set isa_target.h opened (clang's attribute push; g++ keeps its
// target to the end of the file): the last include of a variant source.
#if !defined(TESSERA_CPU_ISA_LEVEL)
#error "isa_target_end.h closes isa_target.h"
#endif

#if TESSERA_CPU_ISA_LEVEL >= 1 && defined(__clang__)
#pragma clang attribute pop
#endif
