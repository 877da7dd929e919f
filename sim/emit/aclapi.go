package emit

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// aclParam is one parameter of a fake ACL function: its C type and name.
type aclParam struct{ Type, Name string }

// aclFunc is one function the fake ACL library exports. Every one is
// dispatched through the process's ACL table (see acl.c.tmpl, "one ACL per
// process"), so this list is the table's layout, the callers' header and the
// runtime's declarations at once.
type aclFunc struct {
	Ret    string
	Name   string
	Params []aclParam
	// Public functions are declared in simabi_fake.h for callers; the
	// others (simabi_acl_x_*) are the fake runtime's private interface.
	Public bool
	// Comment is appended to the header's prototype.
	Comment string
}

// aclFuncs is the fake ACL's exported API, in table order. Changing it
// changes aclTableLayout, so copies of two different layouts never forward
// to each other.
var aclFuncs = []aclFunc{
	{"int", "aclInit", []aclParam{{"const char *", "config_path"}}, true, ""},
	{"int", "aclFinalize", nil, true, ""},
	{"int", "aclrtSetDevice", []aclParam{{"int32_t", "device_id"}}, true, ""},
	{"int", "aclrtGetDevice", []aclParam{{"int32_t *", "device_id"}}, true, ""},
	{"int", "aclrtResetDevice", []aclParam{{"int32_t", "device_id"}}, true, ""},
	{"int", "aclrtCreateStream", []aclParam{{"void **", "stream"}}, true, ""},
	{"int", "aclrtDestroyStream", []aclParam{{"void *", "stream"}}, true, ""},
	{"int", "aclrtSynchronizeStream", []aclParam{{"void *", "stream"}}, true, ""},
	{"int", "aclrtSynchronizeDevice", nil, true, ""},
	{"int", "aclrtMalloc", []aclParam{{"void **", "dev_ptr"}, {"size_t", "size"}, {"int", "policy"}}, true, ""},
	{"int", "aclrtFree", []aclParam{{"void *", "dev_ptr"}}, true, ""},
	{"int", "aclrtMemcpy", []aclParam{{"void *", "dst"}, {"size_t", "dest_max"}, {"const void *", "src"}, {"size_t", "count_bytes"}, {"int", "kind"}}, true, ""},
	{"int", "simabi_acl_counters", []aclParam{{"uint64_t *", "out"}, {"int32_t", "n"}}, true, strings.Join(ACLCounters, ", ")},
	{"void", "simabi_acl_reset_counters", nil, true, ""},
	{"int32_t", "simabi_acl_x_current_device", nil, false, ""},
	{"void", "simabi_acl_x_set_current_device", []aclParam{{"int32_t", "device_id"}}, false, ""},
	{"void", "simabi_acl_x_count", []aclParam{{"int32_t", "slot"}}, false, ""},
	{"void", "simabi_acl_x_mem_lock", nil, false, ""},
	{"void", "simabi_acl_x_mem_unlock", nil, false, ""},
	{"int", "simabi_acl_x_range_ok_locked", []aclParam{{"uint64_t", "addr"}, {"uint64_t", "len"}}, false, ""},
	{"void *", "simabi_acl_x_alloc", []aclParam{{"uint64_t", "size"}}, false, ""},
	{"int", "simabi_acl_x_free", []aclParam{{"void *", "p"}}, false, ""},
	{"int", "simabi_acl_x_register_sync", []aclParam{{"simabi_sync_fn", "fn"}, {"void *", "cookie"}}, false, ""},
	{"void", "simabi_acl_x_unregister_sync", []aclParam{{"simabi_sync_fn", "fn"}, {"void *", "cookie"}}, false, ""},
}

// ParamList is the C parameter list ("void" when empty).
func (f aclFunc) ParamList() string {
	if len(f.Params) == 0 {
		return "void"
	}
	parts := make([]string, len(f.Params))
	for i, p := range f.Params {
		parts[i] = cDecl(p.Type, p.Name)
	}
	return strings.Join(parts, ", ")
}

// ArgList is the parameters' names, as a call forwards them.
func (f aclFunc) ArgList() string {
	names := make([]string, len(f.Params))
	for i, p := range f.Params {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// Prototype is the function's C declaration without the semicolon.
func (f aclFunc) Prototype() string { return cDecl(f.Ret, f.Name) + "(" + f.ParamList() + ")" }

// Void reports whether the function returns nothing.
func (f aclFunc) Void() bool { return f.Ret == "void" }

// cDecl joins a C type and a name, with no space after a '*'.
func cDecl(typ, name string) string {
	if strings.HasSuffix(typ, "*") {
		return typ + name
	}
	return typ + " " + name
}

// aclTableLayout identifies the layout of the ACL table: an FNV-1a hash of
// every prototype in order. Two copies of the fake ACL forward to each other
// only when it matches.
var aclTableLayout = func() uint32 {
	h := fnv.New32a()
	for _, f := range aclFuncs {
		fmt.Fprintf(h, "%s;", f.Prototype())
	}
	return h.Sum32()
}()
