// The consumer lane's action driver (simabi, docs/upstream.md "ChipWorker and
// lifecycle, action by action"): performs ONE user action with upstream
// simpler's ChipWorker, compiled from upstream's sources at lane time and
// linked with this file, and prints what ChipWorker answered at each step.
// Its Go twin is lanes/consumer/chipdiff (the same steps with lifecycle.Worker);
// chipdiff runs both over the recording runtime and compares the two traces
// call by call. The step words are defined there (steps.go) and here alike;
// chipdiff's tests hold the two lists equal.
//
//   actions --lib LIB --aicpu F --aicore F --dispatcher F --warmup F
//           --empty F --callable F -- STEP...
//
// Steps: init[:opt,...] (opts: nobins, disp, prewarm, badprewarm, sdma,
// warmup, dev=N), finalize, new, register=ID[:trailing|:malformed],
// unregister=ID, malloc, malloc0, free, copy, copy_to0,
// run=ID[:one|:nil|:badcfg|:diag], prepare=ID[:gen=N][:slot=N], launch,
// poll, wait, finrun, committed.
//
// One line per step:
//
//   STEP <n> <step> | ok | <detail> | <calls>
//   STEP <n> <step> | err | code=<N>|host | <calls> | <message>
//
// where <calls> is the number of calls in the recorder's trace
// (SIMABI_RECORD_FILE, %p the pid) once the step returned, and a last line
// "END <calls>" after the worker was destroyed. Exit 0, or 2 for a usage
// error.

#include "chip_run_lane.h"  // ChipWorker holds a ChipRunLane by unique_ptr
#include "chip_worker.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

const size_t kBytes = 256;

struct Options {
    std::string lib, aicpu, aicore, dispatcher, warmup, empty, callable;
    std::vector<std::string> steps;
};

std::vector<uint8_t> read_file(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error(path + ": cannot open");
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// The number of call lines in this process's trace so far.
long trace_calls() {
    const char *pattern = std::getenv("SIMABI_RECORD_FILE");
    if (pattern == nullptr || *pattern == '\0') return -1;
    std::string path = pattern;
    const std::string pid = std::to_string(getpid());
    for (size_t at = path.find("%p"); at != std::string::npos; at = path.find("%p", at + pid.size())) {
        path.replace(at, 2, pid);
    }
    std::ifstream f(path);
    if (!f) return 0;
    long n = 0;
    std::string line;
    while (std::getline(f, line)) {
        if (!line.empty() && line[0] == '@') ++n;
    }
    return n;
}

std::string one_line(std::string s) {
    for (char &c : s) {
        if (c == '\n' || c == '\r') c = ' ';
        if (c == '|') c = '/';
    }
    return s;
}

// An exception's class: code=N when ChipWorker reports a native code
// ("<entry> failed with code N", "async-DMA workspace provisioning (mask=M)
// failed with code N"), else host (ChipWorker refused without one).
std::string error_class(const std::string &msg) {
    static const std::regex coded(R"(^([a-z_]+|async-DMA workspace provisioning \(mask=\d+\)) failed with code (-?\d+))");
    std::smatch m;
    if (std::regex_search(msg, m, coded)) return "code=" + m[2].str();
    return "host";
}

// An aligned copy of an image that stays put for the process's life.
const void *aligned_image(std::vector<uint8_t> bytes) {
    void *p = std::aligned_alloc(64, (bytes.size() + 63) / 64 * 64 + 64);
    if (p == nullptr) throw std::runtime_error("out of memory");
    std::memset(p, 0, (bytes.size() + 63) / 64 * 64 + 64);
    std::memcpy(p, bytes.data(), bytes.size());
    return p;
}

std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); i++) {
        if (i == s.size() || s[i] == sep) {
            out.push_back(s.substr(start, i - start));
            start = i + 1;
        }
    }
    return out;
}

struct Session {
    Options opt;
    std::unique_ptr<ChipWorker> w = std::make_unique<ChipWorker>();
    std::vector<uint8_t> image;
    uint64_t in = 0, out = 0;
    std::vector<uint8_t> pattern;
    ChipWorkerNativeRun token{};
    std::vector<std::unique_ptr<ChipStorageTaskArgs>> args_kept;  // a prepared run's args stay put
    std::vector<std::unique_ptr<CallConfig>> configs_kept;

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

    // Runs one step and returns its detail; throws what ChipWorker threw.
    std::string step(const std::string &word) {
        std::vector<std::string> parts = split(word, ':');
        std::string head = parts[0], arg;
        size_t eq = head.find('=');
        if (eq != std::string::npos) {
            arg = head.substr(eq + 1);
            head = head.substr(0, eq);
        }
        std::vector<std::string> opts(parts.begin() + 1, parts.end());
        if (head == "init") {
            std::string aicpu = opt.aicpu, aicore = opt.aicore, disp, warmup;
            std::unique_ptr<CallConfig> prewarm;
            uint32_t mask = 0;
            int device = 0;
            for (const std::string &o : opts.empty() ? std::vector<std::string>{} : split(opts[0], ',')) {
                if (o == "nobins") aicpu = aicore = opt.empty;
                else if (o == "disp") disp = opt.dispatcher;
                else if (o == "prewarm" || o == "badprewarm") {
                    prewarm = std::make_unique<CallConfig>();
                    prewarm->aicpu_thread_num = 4;
                    prewarm->runtime_env.ring_task_window[0] = o == "prewarm" ? 1024 : 1000;
                    prewarm->runtime_env.ring_heap[1] = 1 << 20;
                    prewarm->runtime_env.ring_dep_pool[3] = 64;
                } else if (o == "sdma") mask = 1;
                else if (o == "warmup") warmup = opt.warmup;
                else if (o.rfind("dev=", 0) == 0) device = std::atoi(o.c_str() + 4);
                else throw std::invalid_argument("unknown init option " + o);
            }
            w->init(opt.lib, aicpu, aicore, disp, device, prewarm.get(), mask, "", warmup);
            return "-";
        }
        if (head == "finalize") {
            w->finalize();
            return "-";
        }
        if (head == "new") {
            w = std::make_unique<ChipWorker>();
            return "-";
        }
        if (head == "register") {
            std::vector<uint8_t> img = image;
            if (!opts.empty() && opts[0] == "trailing") img.push_back(0xa5);
            if (!opts.empty() && opts[0] == "malformed") {
                int32_t bad = 300;  // ChipCallable.sig_count (offset 1024): V-IMG step 2
                std::memcpy(img.data() + 1024, &bad, sizeof bad);
            }
            w->register_callable(std::atoi(arg.c_str()), aligned_image(img));
            return "-";
        }
        if (head == "unregister") {
            w->unregister_callable(std::atoi(arg.c_str()));
            return "-";
        }
        if (head == "malloc") {
            in = w->malloc(kBytes);
            out = w->malloc(kBytes);
            return std::string(in ? "nonzero" : "zero") + "," + (out ? "nonzero" : "zero");
        }
        if (head == "malloc0") {
            return w->malloc(0) ? "nonzero" : "zero";
        }
        if (head == "free") {
            w->free(in);
            w->free(out);
            return "-";
        }
        if (head == "copy") {
            w->copy_to(in, reinterpret_cast<uint64_t>(pattern.data()), kBytes);
            std::vector<uint8_t> back(kBytes, 0);
            w->copy_from(reinterpret_cast<uint64_t>(back.data()), in, kBytes);
            return back == pattern ? "equal" : "differ";
        }
        if (head == "copy_to0") {
            w->copy_to(0, reinterpret_cast<uint64_t>(pattern.data()), kBytes);
            return "-";
        }
        if (head == "run") {
            CallConfig config{};
            std::unique_ptr<ChipStorageTaskArgs> a = args(2);
            const ChipStorageTaskArgs *ap = a.get();
            for (const std::string &o : opts) {
                if (o == "one") a = args(1), ap = a.get();
                else if (o == "nil") ap = nullptr;
                else if (o == "badcfg") config.runtime_env.ring_task_window[0] = 1000;
                else if (o == "diag") config.enable_chip_swimlane = 1;
                else throw std::invalid_argument("unknown run option " + o);
            }
            w->run(std::atoi(arg.c_str()), ap, config);
            return "-";
        }
        if (head == "prepare") {
            uint32_t slot = 0;
            uint64_t gen = 1;
            for (const std::string &o : opts) {
                if (o.rfind("gen=", 0) == 0) gen = std::strtoull(o.c_str() + 4, nullptr, 10);
                else if (o.rfind("slot=", 0) == 0) slot = static_cast<uint32_t>(std::atoi(o.c_str() + 5));
                else throw std::invalid_argument("unknown prepare option " + o);
            }
            args_kept.push_back(args(2));
            configs_kept.push_back(std::make_unique<CallConfig>());
            token = w->prepare_native_run(
                std::atoi(arg.c_str()), args_kept.back().get(), *configs_kept.back(), PipelineSlotLease{slot, 0, gen}
            );
            return "slot " + std::to_string(token.slot_id) + " gen " + std::to_string(token.generation);
        }
        if (head == "launch") {
            w->launch_native_run(token);
            return "-";
        }
        if (head == "poll") return w->poll_native_run(token) ? "ready" : "not ready";
        if (head == "wait") {
            w->wait_native_run(token);
            return "-";
        }
        if (head == "finrun") {
            w->finalize_native_run(token);
            return "-";
        }
        if (head == "committed") return std::to_string(w->committed_device_memory());
        throw std::invalid_argument("unknown step " + word);
    }
};

const char kUsage[] =
    "usage: actions --lib LIB --aicpu F --aicore F --dispatcher F --warmup F --empty F --callable F -- STEP...\n";

}  // namespace

int main(int argc, char **argv) {
    Options opt;
    int i = 1;
    for (; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--") {
            i++;
            break;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "actions: %s needs a value\n%s", a.c_str(), kUsage);
            return 2;
        }
        std::string v = argv[++i];
        if (a == "--lib") opt.lib = v;
        else if (a == "--aicpu") opt.aicpu = v;
        else if (a == "--aicore") opt.aicore = v;
        else if (a == "--dispatcher") opt.dispatcher = v;
        else if (a == "--warmup") opt.warmup = v;
        else if (a == "--empty") opt.empty = v;
        else if (a == "--callable") opt.callable = v;
        else {
            std::fprintf(stderr, "actions: %s: unknown flag\n%s", a.c_str(), kUsage);
            return 2;
        }
    }
    for (; i < argc; i++) opt.steps.push_back(argv[i]);
    if (opt.lib.empty() || opt.aicpu.empty() || opt.aicore.empty() || opt.dispatcher.empty() || opt.warmup.empty() ||
        opt.empty.empty() || opt.callable.empty() || opt.steps.empty()) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    Session s;
    s.opt = opt;
    try {
        s.image = read_file(opt.callable);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "actions: %s\n", e.what());
        return 2;
    }
    for (size_t k = 0; k < kBytes; k++) s.pattern.push_back(static_cast<uint8_t>(k * 7 + 3));
    int n = 0;
    for (const std::string &word : opt.steps) {
        ++n;
        std::string line;
        try {
            std::string detail = s.step(word);
            line = "STEP " + std::to_string(n) + " " + word + " | ok | " + one_line(detail) + " | " +
                   std::to_string(trace_calls());
        } catch (const std::exception &e) {
            std::string msg = one_line(e.what());
            line = "STEP " + std::to_string(n) + " " + word + " | err | " + error_class(msg) + " | " +
                   std::to_string(trace_calls()) + " | " + msg;
        }
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
    }
    s.w.reset();
    std::printf("END %ld\n", trace_calls());
    return 0;
}
