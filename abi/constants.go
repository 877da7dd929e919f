package abi

// Constants of docs/contract.md ("Constants").
const (
	MaxRegisteredCallableIDs = 8192 // MAX_REGISTERED_CALLABLE_IDS (kernel ids are in [0, 8192))
	// LegacyRegisteredCallableIDs is MAX_REGISTERED_CALLABLE_IDS of a legacy
	// build: simpler_register_callable takes ids in [0, 64) there (E-PROG;
	// upstream common/task_interface/callable_protocol.h:31 at 6ebaf77).
	LegacyRegisteredCallableIDs = 64
	KernelMaxFuncID             = 1024 // KERNEL_MAX_FUNC_ID (child func ids are in [0, 1024))
	MaxChildren                 = 1024 // ChipCallable children
	ChipMaxTensorArgs           = 256  // CHIP_MAX_TENSOR_ARGS (also the signature capacity)
	ChipMaxScalarArgs           = 128  // CHIP_MAX_SCALAR_ARGS
	CoreMaxTensorArgs           = 32   // CORE_MAX_TENSOR_ARGS (child signature capacity)
	CallableAlign               = 64   // CALLABLE_ALIGN: child offsets inside an image
	CallableChildAlign          = 16   // CALLABLE_CHILD_ALIGN: alignment of an image's base address
	CallableFuncNameMax         = 64   // CALLABLE_FUNC_NAME_MAX (names hold at most 63 bytes + NUL)
	MaxTensorDims               = 5    // MAX_TENSOR_DIMS
	RuntimeEnvRingCount         = 4    // RUNTIME_ENV_RING_COUNT
	OutputPrefixBytes           = 1024 // CallConfig.output_prefix

	PipelineContractABIVersion = 1 // PTO_PIPELINE_CONTRACT_ABI_VERSION
	PipelineMaxResources       = 8 // PTO_PIPELINE_MAX_RESOURCES
	PipelineMaxDepth           = 2 // PTO_PIPELINE_MAX_DEPTH

	PlatformMaxAicpuThreadsA2A3 = 4 // PLATFORM_MAX_AICPU_THREADS on a2a3 (simulated builds use a2a3)
	PlatformMaxAicpuThreadsA5   = 5 // PLATFORM_MAX_AICPU_THREADS on a5

	SimplerModeProgram = 0 // SIMPLER_MODE_PROGRAM
	SimplerModeKernel  = 1 // SIMPLER_MODE_KERNEL

	HostLogStateABIVersion = 1 // SimplerHostLogState.abi_version
)

// Kernel code budget (M-5): 2 GiB of allocated code blocks, shared blocks of
// 2 MiB, charges rounded up to 64 bytes.
const (
	KernelCodeBudget     uint64 = 2 << 30
	KernelCodeBlockBytes uint64 = 2 << 20
	KernelChargeAlign    uint64 = 64
)

// ArgDirection is a signature entry of a callable.
type ArgDirection int32

// Signature values.
const (
	DirScalar ArgDirection = 0
	DirIn     ArgDirection = 1
	DirOut    ArgDirection = 2
	DirInOut  ArgDirection = 3
)

// IsTensor reports whether d names a tensor argument (IN, OUT or INOUT).
func (d ArgDirection) IsTensor() bool { return d >= DirIn && d <= DirInOut }

// Valid reports whether d is one of the four defined values.
func (d ArgDirection) Valid() bool { return d >= DirScalar && d <= DirInOut }

// AlignUp rounds x up to a multiple of a (a power of two).
func AlignUp(x, a uint64) uint64 { return (x + a - 1) &^ (a - 1) }

// KernelCharge is the budget charge of one prepare of an image of size bytes
// (M-5): align_up(size, 64).
func KernelCharge(size uint64) uint64 { return AlignUp(size, KernelChargeAlign) }
