// The consumer lane's driver (simabi, docs/upstream.md "Upstream's own
// consumer"): drives upstream simpler's ChipWorker, compiled from upstream's
// sources at lane time and linked with this file, over one host runtime, and
// prints one line per step:
//
//   STEP <name> | <outcome> | <detail>
//
// outcome is ok (the call returned; detail is what it returned, "-" for
// nothing), threw (detail is the exception's message) or skipped (detail says
// why). Every step then gets one verdict line against the expectation file:
//
//   CHECK <name> | match
//   CHECK <name> | MISMATCH | want <outcome> | <detail>
//   CHECK <name> | known | want <outcome> | <detail> | <reason>
//
// and the last line is "RESULT ...". Exit status: 0 when every step matched
// its expectation or differed where the expectation marks a known
// difference, 1 otherwise, 2 for a usage or setup error.
//
// Expectation file: one step a line, "#" starts a comment line,
//
//   <name> | <outcome> | <detail> [| known: <reason>]
//
// detail "*" matches any detail, a detail ending in "..." matches any detail
// that starts with what precedes the dots, any other detail must be equal.
// Every step the driver runs needs a line, and every line a step, in the
// order the driver takes them: the driver's steps are declared here only, and
// the lane's report takes them from its output.
//
// The driver only uses ChipWorker's public interface, the way the Python
// binding (python/bindings/task_interface.cpp) calls it. Every step calls
// ChipWorker whatever happened before (after a failed init too), so that the
// table shows what ChipWorker itself answers.

#include "chip_run_lane.h"  // ChipWorker holds a ChipRunLane by unique_ptr
#include "chip_worker.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

const char kUsage[] =
    "usage: driver --lib HOST_RUNTIME.so --aicpu FILE --aicore FILE --callable FILE\n"
    "              --args copy-bytes|none --expect FILE [--sim-context LIB.so]\n"
    "              [--device N] [--rootinfo PATH] [--name TARGET]\n"
    "  --lib          the host runtime ChipWorker loads (or the recorder in front of one)\n"
    "  --aicpu/--aicore  the executor binaries simpler_init takes\n"
    "  --callable     a ChipCallable image file, registered as ids 0\n"
    "  --args         copy-bytes: the image runs simabi.copy_bytes over tensors [in, out]\n"
    "                 (the fake); none: it takes no argument (upstream's one-task)\n"
    "  --expect       the expectation file of this target\n"
    "  --sim-context  upstream's libcpu_sim_context.so (ChipWorker's sim_context_path)\n"
    "  --rootinfo     the comm rootinfo path (default /tmp/simabi-consumer-rootinfo-PID)\n";

struct Expectation {
    std::string outcome, detail, known;
    int line = 0;
};

std::string trim(const std::string &s) {
    size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

std::vector<std::string> split_fields(const std::string &line) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : line) {
        if (c == '|') {
            out.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(trim(cur));
    return out;
}

// Reads an expectation file; on error sets err to "FILE:LINE: what".
bool read_expectations(const std::string &path, std::map<std::string, Expectation> *out, std::string *err) {
    std::ifstream f(path);
    if (!f) {
        *err = path + ": cannot open the expectation file";
        return false;
    }
    std::string line;
    int n = 0;
    while (std::getline(f, line)) {
        ++n;
        std::string t = trim(line);
        if (t.empty() || t[0] == '#') continue;
        std::vector<std::string> fs = split_fields(t);
        auto where = path + ":" + std::to_string(n) + ": ";
        if (fs.size() < 3 || fs.size() > 4) {
            *err = where + "want NAME | OUTCOME | DETAIL [| known: REASON], got " + std::to_string(fs.size()) +
                   " fields";
            return false;
        }
        if (fs[0].empty()) {
            *err = where + "empty step name";
            return false;
        }
        if (fs[1] != "ok" && fs[1] != "threw" && fs[1] != "skipped") {
            *err = where + "outcome \"" + fs[1] + "\" is not ok, threw or skipped";
            return false;
        }
        if (fs[2].empty()) {
            *err = where + "empty detail (write - for none, * for any)";
            return false;
        }
        Expectation e{fs[1], fs[2], "", n};
        if (fs.size() == 4) {
            if (fs[3].rfind("known:", 0) != 0 || trim(fs[3].substr(6)).empty()) {
                *err = where + "the fourth field must be \"known: REASON\"";
                return false;
            }
            e.known = trim(fs[3].substr(6));
        }
        if (out->count(fs[0]) != 0) {
            *err = where + "step " + fs[0] + " is listed twice";
            return false;
        }
        (*out)[fs[0]] = e;
    }
    return true;
}

bool detail_matches(const std::string &want, const std::string &got) {
    if (want == "*") return true;
    const std::string dots = "...";
    if (want.size() >= dots.size() && want.compare(want.size() - dots.size(), dots.size(), dots) == 0) {
        return got.rfind(want.substr(0, want.size() - dots.size()), 0) == 0;
    }
    return want == got;
}

// One line of output; flushed, so that a crash loses no step already taken.
void emit(const std::string &s) {
    std::fputs(s.c_str(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

// Keeps details on one line and free of the field separator.
std::string one_line(std::string s) {
    for (char &c : s) {
        if (c == '\n' || c == '\r') c = ' ';
        if (c == '|') c = '/';
    }
    s = trim(s);
    return s.empty() ? "-" : s;
}

struct Outcome {
    std::string outcome, detail;
};

class Session {
public:
    explicit Session(std::map<std::string, Expectation> expect) :
        expect_(std::move(expect)) {}

    // Runs one step: fn returns the detail of a step that returned; an
    // exception is the step's "threw"; a Skip is "skipped".
    struct Skip {
        std::string why;
    };
    Outcome step(const std::string &name, const std::function<std::string()> &fn) {
        Outcome o;
        try {
            o = {"ok", one_line(fn())};
        } catch (const Skip &s) {
            o = {"skipped", one_line(s.why)};
        } catch (const std::exception &e) {
            o = {"threw", one_line(e.what())};
        } catch (...) {
            o = {"threw", "a non-std exception"};
        }
        emit("STEP " + name + " | " + o.outcome + " | " + o.detail);
        judge(name, o);
        return o;
    }

    // Lines of the expectation file that named no step; the verdict.
    int finish() {
        for (const auto &kv : expect_) {
            if (seen_.count(kv.first) == 0) {
                emit(
                    "CHECK " + kv.first + " | MISMATCH | want " + kv.second.outcome + " | " + kv.second.detail +
                    " | the driver ran no such step (expectation line " + std::to_string(kv.second.line) + ")"
                );
                ++mismatch_;
            }
        }
        emit(
            "RESULT " + std::to_string(steps_) + " steps: " + std::to_string(match_) + " match, " +
            std::to_string(known_) + " known difference, " + std::to_string(mismatch_) + " mismatch"
        );
        return mismatch_ == 0 ? 0 : 1;
    }

private:
    void judge(const std::string &name, const Outcome &o) {
        ++steps_;
        if (!seen_.insert(name).second) {
            emit("CHECK " + name + " | MISMATCH | the driver ran this step twice");
            ++mismatch_;
            return;
        }
        auto it = expect_.find(name);
        if (it == expect_.end()) {
            emit("CHECK " + name + " | MISMATCH | the expectation file has no line for this step");
            ++mismatch_;
            return;
        }
        const Expectation &e = it->second;
        const int previous = last_line_;
        last_line_ = e.line;
        if (e.line < previous) {
            emit("CHECK " + name + " | MISMATCH | the expectation file lists this step (line " + std::to_string(e.line) +
                 ") before the one the driver took before it (line " + std::to_string(previous) + ")");
            ++mismatch_;
        } else if (e.outcome == o.outcome && detail_matches(e.detail, o.detail)) {
            emit("CHECK " + name + " | match");
            ++match_;
        } else if (!e.known.empty()) {
            emit("CHECK " + name + " | known | want " + e.outcome + " | " + e.detail + " | " + e.known);
            ++known_;
        } else {
            emit("CHECK " + name + " | MISMATCH | want " + e.outcome + " | " + e.detail);
            ++mismatch_;
        }
    }

    std::map<std::string, Expectation> expect_;
    std::set<std::string> seen_;
    int steps_ = 0, match_ = 0, known_ = 0, mismatch_ = 0, last_line_ = 0;
};

std::vector<uint8_t> read_file(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error(path + ": cannot open");
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// A registered image must stay put for the registration's life; 64-byte
// aligned as the runtimes expect of an image.
struct Image {
    void *p = nullptr;
    size_t size = 0;
    ~Image() { std::free(p); }
};

std::string zero_or_nonzero(uint64_t v) { return v == 0 ? "0" : "nonzero"; }

const size_t kBytes = 256;

// What the lane's session needs from one ChipWorker: the image, two device
// buffers and how the callable takes its arguments.
struct Work {
    bool copy_bytes = false;  // --args copy-bytes
    const void *image = nullptr;
    uint64_t in = 0, out = 0;  // device buffers of kBytes each (0 when malloc failed)
    std::vector<uint8_t> pattern;

    std::unique_ptr<ChipStorageTaskArgs> args(int tensors) const {
        auto a = std::make_unique<ChipStorageTaskArgs>();
        uint32_t shape[1] = {static_cast<uint32_t>(kBytes)};
        uint64_t bufs[2] = {in, out};
        for (int i = 0; i < tensors; i++) {
            a->add_tensor(make_tensor_external(
                reinterpret_cast<void *>(bufs[i % 2]), shape, 1, DataType::UINT8, false, 0, AddressSpace::DEVICE
            ));
        }
        return a;
    }
    // The run's arguments: [in, out] for copy-bytes, none for one-task.
    std::unique_ptr<ChipStorageTaskArgs> run_args() const { return args(copy_bytes ? 2 : 0); }
    // One tensor: one short of copy-bytes' signature, one more than one-task's.
    std::unique_ptr<ChipStorageTaskArgs> wrong_args() const { return args(1); }

    // Before a run: zero the output buffer (copy-bytes, on an initialized
    // worker only: else the step shows what the run call itself answers).
    void clear_output(ChipWorker &w) const {
        if (!copy_bytes || !w.initialized()) return;
        std::vector<uint8_t> zero(kBytes, 0);
        w.copy_to(out, reinterpret_cast<uint64_t>(zero.data()), kBytes);
    }
    // After a run: what the output holds (copy-bytes), "-" for one-task.
    std::string check_output(ChipWorker &w) const {
        if (!copy_bytes || !w.initialized()) return "-";
        std::vector<uint8_t> got(kBytes, 0xee);
        w.copy_from(reinterpret_cast<uint64_t>(got.data()), out, kBytes);
        return got == pattern ? "output equals input (" + std::to_string(kBytes) + " bytes copied)"
                              : "OUTPUT DIFFERS from the input";
    }
};

struct Options {
    std::string lib, aicpu, aicore, callable, args, expect, sim_context, rootinfo, name;
    int device = 0;
};

bool parse_options(int argc, char **argv, Options *o, std::string *err) {
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            *err = "";
            return false;
        }
        if (i + 1 >= argc) {
            *err = a + ": needs a value";
            return false;
        }
        std::string v = argv[++i];
        if (a == "--lib") o->lib = v;
        else if (a == "--aicpu") o->aicpu = v;
        else if (a == "--aicore") o->aicore = v;
        else if (a == "--callable") o->callable = v;
        else if (a == "--args") o->args = v;
        else if (a == "--expect") o->expect = v;
        else if (a == "--sim-context") o->sim_context = v;
        else if (a == "--rootinfo") o->rootinfo = v;
        else if (a == "--name") o->name = v;
        else if (a == "--device") o->device = std::atoi(v.c_str());
        else {
            *err = a + ": unknown flag";
            return false;
        }
    }
    if (o->lib.empty() || o->aicpu.empty() || o->aicore.empty() || o->callable.empty() || o->expect.empty()) {
        *err = "--lib, --aicpu, --aicore, --callable and --expect are required";
        return false;
    }
    if (o->args != "copy-bytes" && o->args != "none") {
        *err = "--args must be copy-bytes or none";
        return false;
    }
    if (o->rootinfo.empty()) o->rootinfo = "/tmp/simabi-consumer-rootinfo-" + std::to_string(getpid());
    return true;
}

}  // namespace

int main(int argc, char **argv) {
    Options opt;
    std::string err;
    if (!parse_options(argc, argv, &opt, &err)) {
        if (!err.empty()) std::fprintf(stderr, "driver: %s\n", err.c_str());
        std::fputs(kUsage, stderr);
        return 2;
    }
    std::map<std::string, Expectation> expect;
    if (!read_expectations(opt.expect, &expect, &err)) {
        std::fprintf(stderr, "driver: %s\n", err.c_str());
        return 2;
    }
    Image image;
    try {
        std::vector<uint8_t> bytes = read_file(opt.callable);
        image.size = bytes.size();
        image.p = std::aligned_alloc(64, (bytes.size() + 63) / 64 * 64 + 64);
        if (image.p == nullptr) throw std::runtime_error("out of memory");
        std::memcpy(image.p, bytes.data(), bytes.size());
    } catch (const std::exception &e) {
        std::fprintf(stderr, "driver: the callable image: %s\n", e.what());
        return 2;
    }
    emit("TARGET " + (opt.name.empty() ? opt.lib : opt.name) + " | " + opt.lib);

    Session s(expect);
    Work work;
    work.copy_bytes = opt.args == "copy-bytes";
    work.image = image.p;
    for (size_t i = 0; i < kBytes; i++) work.pattern.push_back(static_cast<uint8_t>(i * 7 + 3));
    const CallConfig config{};
    const std::string simctx = opt.sim_context;

    {
        ChipWorker w;
        s.step("init", [&] {
            w.init(opt.lib, opt.aicpu, opt.aicore, "", opt.device, nullptr, 0, simctx, "");
            return "-";
        });
        s.step("initialized", [&] { return std::string(w.initialized() ? "true" : "false"); });
        s.step("device_id", [&] { return std::to_string(w.device_id()); });
        s.step("pipeline_depth", [&] { return std::to_string(w.pipeline_depth()); });
        s.step("runtime_slot_count", [&] { return std::to_string(w.runtime_slot_count()); });
        s.step("supports_concurrent_native_prepare", [&] {
            return std::string(w.supports_concurrent_native_prepare() ? "true" : "false");
        });
        s.step("committed_device_memory", [&] { return std::to_string(w.committed_device_memory()); });
        s.step("arena_bank_gm_heap_base(0)", [&] { return zero_or_nonzero(w.arena_bank_gm_heap_base(0)); });
        s.step("retained_temp_addr(0)", [&] { return zero_or_nonzero(w.retained_temp_addr(0)); });
        s.step("aicpu_dlopen_count", [&] { return std::to_string(w.aicpu_dlopen_count()); });
        s.step("host_dlopen_count", [&] { return std::to_string(w.host_dlopen_count()); });
        s.step("run_stream_set_create_count", [&] { return std::to_string(w.run_stream_set_create_count()); });

        s.step("register_callable(0)", [&] {
            w.register_callable(0, work.image);
            return "-";
        });
        s.step("aicpu_dlopen_count.after_register", [&] { return std::to_string(w.aicpu_dlopen_count()); });
        s.step("host_dlopen_count.after_register", [&] { return std::to_string(w.host_dlopen_count()); });

        s.step("malloc", [&] {
            work.in = w.malloc(kBytes);
            work.out = w.malloc(kBytes);
            return "2 buffers of " + std::to_string(kBytes) + " bytes, " + zero_or_nonzero(work.in) + ", " +
                   zero_or_nonzero(work.out);
        });
        s.step("copy_to/copy_from", [&] {
            w.copy_to(work.in, reinterpret_cast<uint64_t>(work.pattern.data()), kBytes);
            std::vector<uint8_t> back(kBytes, 0);
            w.copy_from(reinterpret_cast<uint64_t>(back.data()), work.in, kBytes);
            return back == work.pattern ? std::to_string(kBytes) + " bytes round-tripped equal"
                                        : std::string("THE BYTES DIFFER after the round trip");
        });

        s.step("run(0)", [&] {
            work.clear_output(w);
            auto a = work.run_args();
            w.run(0, a.get(), config);
            return work.check_output(w);
        });
        s.step("run_with_lease(0)", [&] {
            work.clear_output(w);
            auto a = work.run_args();
            w.run_with_lease(0, a.get(), config, PipelineSlotLease{0, 0, 1});
            return work.check_output(w);
        });

        // The native phases one by one, on slot 0 with lease generations past
        // run_with_lease's.
        ChipWorkerNativeRun nr{};
        auto native_args = work.run_args();
        s.step("prepare_native_run(0)", [&] {
            work.clear_output(w);
            nr = w.prepare_native_run(0, native_args.get(), config, PipelineSlotLease{0, 0, 2});
            return "slot " + std::to_string(nr.slot_id) + ", generation " + std::to_string(nr.generation);
        });
        s.step("launch_native_run", [&] {
            w.launch_native_run(nr);
            return "-";
        });
        s.step("poll_native_run", [&] { return std::string(w.poll_native_run(nr) ? "ready" : "not ready"); });
        s.step("wait_native_run", [&] {
            w.wait_native_run(nr);
            return "-";
        });
        s.step("poll_native_run.after_wait", [&] {
            return std::string(w.poll_native_run(nr) ? "ready" : "not ready");
        });
        s.step("finalize_native_run", [&] {
            w.finalize_native_run(nr);
            return work.check_output(w);
        });

        // Prepared, never launched, finalized.
        ChipWorkerNativeRun unl{};
        s.step("prepare_native_run.unlaunched", [&] {
            unl = w.prepare_native_run(0, native_args.get(), config, PipelineSlotLease{0, 0, 3});
            return "slot " + std::to_string(unl.slot_id) + ", generation " + std::to_string(unl.generation);
        });
        s.step("finalize_native_run.unlaunched", [&] {
            w.finalize_native_run(unl);
            return "-";
        });
        s.step("aicpu_dlopen_count.after_runs", [&] { return std::to_string(w.aicpu_dlopen_count()); });
        s.step("host_dlopen_count.after_runs", [&] { return std::to_string(w.host_dlopen_count()); });

        // A comm round trip on one rank: skipped when the runtime's comm_init
        // returns NULL (ChipWorker then throws "comm_init failed").
        uint64_t comm = 0;
        std::string comm_skip;
        auto need_comm = [&] {
            if (!comm_skip.empty()) throw Session::Skip{comm_skip};
        };
        s.step("comm_init(rank 0 of 1)", [&] {
            try {
                comm = w.comm_init(0, 1, opt.rootinfo);
            } catch (const std::exception &e) {
                if (std::string(e.what()) != "comm_init failed") throw;
                comm_skip = "comm_init returned NULL (ChipWorker: comm_init failed): the runtime has no comm backend";
                throw Session::Skip{comm_skip};
            }
            return "handle " + zero_or_nonzero(comm);
        });
        if (comm == 0 && comm_skip.empty()) comm_skip = "comm_init threw";
        s.step("comm_alloc_windows(4096)", [&] {
            need_comm();
            return "device ctx " + zero_or_nonzero(w.comm_alloc_windows(comm, 4096));
        });
        s.step("comm_get_local_window_base", [&] {
            need_comm();
            return zero_or_nonzero(w.comm_get_local_window_base(comm));
        });
        s.step("comm_get_window_size", [&] {
            need_comm();
            return std::to_string(w.comm_get_window_size(comm));
        });
        s.step("comm_barrier", [&] {
            need_comm();
            w.comm_barrier(comm);
            return "-";
        });
        // The domain entries ChipWorker resolves since 2026-05..08, each once
        // as a one-rank round trip and once refused for one bad argument.
        s.step("comm_derive_context(offset 1024, size 2048)", [&] {
            need_comm();
            return "device ctx " + zero_or_nonzero(w.comm_derive_context(comm, {0}, 0, 1024, 2048));
        });
        s.step("comm_derive_context.past_the_window", [&] {
            need_comm();
            return "device ctx " + zero_or_nonzero(w.comm_derive_context(comm, {0}, 0, 2048, 4096));
        });
        s.step("comm_alloc_domain_windows(7)", [&] {
            need_comm();
            auto [ctx, base] = w.comm_alloc_domain_windows(comm, 7, {0}, 0, 4096);
            return "device ctx " + zero_or_nonzero(ctx) + ", base " + zero_or_nonzero(base);
        });
        s.step("comm_alloc_domain_windows(7).live_id", [&] {
            need_comm();
            auto [ctx, base] = w.comm_alloc_domain_windows(comm, 7, {0}, 0, 4096);
            return "device ctx " + zero_or_nonzero(ctx) + ", base " + zero_or_nonzero(base);
        });
        s.step("comm_release_domain_windows(7)", [&] {
            need_comm();
            w.comm_release_domain_windows(comm, 7, 1, 0);
            return "-";
        });
        s.step("comm_release_domain_windows(7).again", [&] {
            need_comm();
            w.comm_release_domain_windows(comm, 7, 1, 0);
            return "-";
        });
        std::vector<uint8_t> descriptor;
        s.step("comm_global_domain_prepare(41)", [&] {
            need_comm();
            auto [bytes, base, size] = w.comm_global_domain_prepare(41, 0, 1, 4096, COMM_GLOBAL_DOMAIN_PROFILE_SIM_SHM);
            descriptor = bytes;
            return std::to_string(bytes.size()) + "-byte descriptor, base " + zero_or_nonzero(base) + ", size " +
                   std::to_string(size);
        });
        s.step("comm_global_domain_prepare(42).a3_fabric_profile", [&] {
            need_comm();
            auto [bytes, base, size] =
                w.comm_global_domain_prepare(42, 0, 1, 4096, COMM_GLOBAL_DOMAIN_PROFILE_A3_FABRIC);
            return std::to_string(bytes.size()) + "-byte descriptor, base " + zero_or_nonzero(base);
        });
        s.step("comm_global_domain_import(41)", [&] {
            need_comm();
            if (descriptor.empty()) throw Session::Skip{"comm_global_domain_prepare(41) gave no descriptor"};
            return "device ctx " + zero_or_nonzero(w.comm_global_domain_import(41, descriptor));
        });
        s.step("comm_global_domain_import(41).again", [&] {
            need_comm();
            if (descriptor.empty()) throw Session::Skip{"comm_global_domain_prepare(41) gave no descriptor"};
            return "device ctx " + zero_or_nonzero(w.comm_global_domain_import(41, descriptor));
        });
        s.step("comm_global_domain_release(41)", [&] {
            need_comm();
            w.comm_global_domain_release(41);
            return "-";
        });
        s.step("comm_global_domain_release(43).never_prepared", [&] {
            need_comm();
            w.comm_global_domain_release(43);
            return "-";
        });
        s.step("comm_destroy", [&] {
            need_comm();
            w.comm_destroy(comm);
            return "-";
        });

        // Refusals.
        s.step("run(5).unregistered", [&] {
            auto a = work.run_args();
            w.run(5, a.get(), config);
            return "-";
        });
        bool took64 = false;
        s.step("register_callable(64)", [&] {
            w.register_callable(64, work.image);
            took64 = true;
            return "-";
        });
        if (took64) {
            // Keep the session comparable: drop what a refusing runtime never took.
            try {
                w.unregister_callable(64);
                emit("NOTE register_callable(64) was accepted; unregistered it again");
            } catch (const std::exception &e) {
                emit(std::string("NOTE register_callable(64) was accepted; unregistering it threw: ") + e.what());
            }
        }
        s.step("register_callable(0).duplicate", [&] {
            w.register_callable(0, work.image);
            return "-";
        });
        s.step("run(0).wrong_tensor_count", [&] {
            auto a = work.wrong_args();
            w.run(0, a.get(), config);
            return "-";
        });
        s.step("unregister_callable(0)", [&] {
            w.unregister_callable(0);
            return "-";
        });
        s.step("run(0).after_unregister", [&] {
            auto a = work.run_args();
            w.run(0, a.get(), config);
            return "-";
        });
        s.step("free", [&] {
            w.free(work.in);
            w.free(work.out);
            return "-";
        });
        s.step("finalize", [&] {
            w.finalize();
            return "-";
        });
        s.step("initialized.after_finalize", [&] { return std::string(w.initialized() ? "true" : "false"); });
        s.step("init.same_worker_after_finalize", [&] {
            w.init(opt.lib, opt.aicpu, opt.aicore, "", opt.device, nullptr, 0, simctx, "");
            return "-";
        });
    }

    // Re-init: a fresh ChipWorker on the same library, a short session.
    {
        ChipWorker w;
        Work again = work;
        again.in = again.out = 0;
        s.step("reinit.init", [&] {
            w.init(opt.lib, opt.aicpu, opt.aicore, "", opt.device, nullptr, 0, simctx, "");
            return "-";
        });
        s.step("reinit.register_callable(0)", [&] {
            w.register_callable(0, again.image);
            return "-";
        });
        s.step("reinit.run(0)", [&] {
            const bool buffers = again.copy_bytes && w.initialized();
            if (buffers) {
                again.in = w.malloc(kBytes);
                again.out = w.malloc(kBytes);
                w.copy_to(again.in, reinterpret_cast<uint64_t>(again.pattern.data()), kBytes);
                again.clear_output(w);
            }
            auto a = again.run_args();
            w.run(0, a.get(), config);
            std::string d = again.check_output(w);
            if (buffers) {
                w.free(again.in);
                w.free(again.out);
            }
            return d;
        });
        s.step("reinit.unregister_callable(0)", [&] {
            w.unregister_callable(0);
            return "-";
        });
        s.step("reinit.finalize", [&] {
            w.finalize();
            return "-";
        });
    }
    return s.finish();
}
