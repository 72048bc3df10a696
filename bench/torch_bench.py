#!/usr/bin/python3
"""PyTorch (CPU) timings of heed's network, for comparison with heed's Go
benchmarks (model/bench_test.go).

The network is rebuilt in PyTorch with the shapes of model.DefaultConfig():
80 mel bins stacked by 3 (240 inputs), a 3-layer bidirectional GRU of 128
units per direction, a CTC head (29 tokens), and a location-aware attention
decoder (embedding 64, GRU 256, attention 128, 10 location filters of width
31, output layer 256). Every parameter tensor is checked against heed's
tensor list (model.Params, file order) before anything is timed.

Parts (timings are the median of --reps repetitions after --warmup ones):

  encode  Go BenchmarkEncode: 10 s of audio (1000 frames -> 334 encoder
          frames), batch 1: stacking, BiGRU, CTC log-softmax and the
          attention keys V h + b. Reported in ms per audio second.
  decode  Go BenchmarkDecodeStep: greedy decoding, 150 steps over that
          encoding with the local window [m-4, m+24] around the median of the
          previous alignment (DecodeWindow, the default). Reported in ms per
          output character.
  train   Go BenchmarkTrainStep: 4 utterances of 3 s (300 frames, 36
          random characters each); SpecAugment (2 freq masks <= 15 bins,
          2 time masks <= 40 frames), encoder dropout 0.1, CTC (weight 0.3) +
          label-smoothed (0.1) attention cross-entropy with full attention,
          teacher-forced; loss / total characters, backward, gradient clip 5,
          one Adam step. Batched (B = 4). Reported in audio seconds per wall
          second.
  gemm    torch.mm GFLOP/s on five of internal/kern's matmul benchmark
          shapes, named like the Go sub-benchmarks (GEMM_SHAPES).

Before timing, a float32 product (256x320 by 320x384, and the 1x256 by
256x768 matvec) is checked against a float64 numpy.einsum reference (C loops,
not BLAS) so that a mis-detected BLAS kernel cannot produce fast wrong
numbers; the script exits with status 1 if it does not match.

Usage:
  /usr/bin/python3 bench/torch_bench.py --threads 1 --parts encode,decode
  /usr/bin/python3 bench/torch_bench.py --threads 2 --parts train
  /usr/bin/python3 bench/torch_bench.py --summarize DIR   # table for run.sh

Output: one JSON object on stdout.
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

# Configuration: model.DefaultConfig() (model/config.go).
CFG = {
    "num_mel": 80,
    "stack": 3,
    "enc_layers": 3,
    "enc_hidden": 128,
    "embed_dim": 64,
    "dec_hidden": 256,
    "att_dim": 128,
    "conv_filters": 10,
    "conv_width": 31,
    "window_left": 4,
    "window_right": 24,
    "ctc_weight": 0.3,
    "label_smoothing": 0.1,
    "dropout": 0.1,
    "vocab": 29,  # 0 <eos> (= CTC blank), 1 space, 2 apostrophe, 3..28 a..z
}
EOS = 0

# Benchmark setups, as in model/bench_test.go.
ENC_FRAMES = 1000  # 10 s of 10 ms frames
DEC_STEPS = 150  # greedy steps per decoding
TRAIN_UTTS, TRAIN_FRAMES = 4, 300  # 4 x 3 s
CHARS_PER_100_FRAMES = 12  # benchUtterance: frames*12/100 characters
ADAM_LR, CLIP_NORM = 1e-4, 5.0
SPEC_FREQ_MASKS, SPEC_FREQ_WIDTH = 2, 15  # model.DefaultSpecAugment()
SPEC_TIME_MASKS, SPEC_TIME_WIDTH, SPEC_TIME_RATIO = 2, 40, 0.2

# The check tolerates this relative error (max |C - ref| / max |ref|) of a
# float32 product against the float64 reference; correct float32 kernels are
# around 1e-7 on these shapes, a broken kernel is off by O(1).
CHECK_TOL = 1e-5


def go_tensors(c):
    """Returns heed's parameter tensors (model.Params order) as (name, shape)."""
    H, E, D, A, V = c["enc_hidden"], c["embed_dim"], c["dec_hidden"], c["att_dim"], c["vocab"]
    nf, K = c["conv_filters"], c["conv_width"]
    out = []
    for l in range(c["enc_layers"]):
        n_in = c["stack"] * c["num_mel"] if l == 0 else 2 * H
        for d in "fb":
            p = "enc.%d.%s." % (l, d)
            out += [(p + "w_ih", (3 * H, n_in)), (p + "w_hh", (3 * H, H)),
                    (p + "b_ih", (3 * H,)), (p + "b_hh", (3 * H,))]
    out += [("ctc.w", (V, 2 * H)), ("ctc.b", (V,)), ("dec.embed", (V, E)),
            ("dec.gru.w_ih", (3 * D, E + 2 * H)), ("dec.gru.w_hh", (3 * D, D)),
            ("dec.gru.b_ih", (3 * D,)), ("dec.gru.b_hh", (3 * D,)),
            ("att.w", (A, D)), ("att.v", (A, 2 * H)), ("att.u", (A, nf)),
            ("att.b", (A,)), ("att.vec", (A,)), ("att.conv", (nf, K)),
            ("out.wo", (D, D + 2 * H)), ("out.bo", (D,)), ("out.w", (V, D)), ("out.b", (V,))]
    return out


def median_time(fn, reps, warmup):
    """Runs fn warmup+reps times; returns the median wall and CPU seconds."""
    for _ in range(warmup):
        fn()
    wall, cpu = [], []
    for _ in range(reps):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu), min(wall)


def build(torch, c):
    """Builds the network (nn.Module) and checks it against go_tensors."""
    nn = torch.nn
    H, E, D, A, V = c["enc_hidden"], c["embed_dim"], c["dec_hidden"], c["att_dim"], c["vocab"]
    nf, K = c["conv_filters"], c["conv_width"]

    class Heed(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.GRU(c["stack"] * c["num_mel"], H, num_layers=c["enc_layers"],
                              bidirectional=True, batch_first=True, dropout=c["dropout"])
            self.ctc = nn.Linear(2 * H, V)
            self.embed = nn.Embedding(V, E)
            self.dec = nn.GRUCell(E + 2 * H, D)
            self.att_w = nn.Linear(D, A, bias=False)  # query W s
            self.att_v = nn.Linear(2 * H, A)  # keys V h + b
            self.att_u = nn.Linear(nf, A, bias=False)  # location U f
            self.att_vec = nn.Linear(A, 1, bias=False)  # energy vector w
            # Same (zero) padding; the windowed step calls F.conv1d without it.
            self.att_conv = nn.Conv1d(1, nf, K, padding=K // 2, bias=False)
            self.out_wo = nn.Linear(D + 2 * H, D)
            self.out_w = nn.Linear(D, V)

    m = Heed()
    theirs = []
    for l in range(c["enc_layers"]):
        for sfx in ("", "_reverse"):
            for w in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                theirs.append(getattr(m.enc, "%s_l%d%s" % (w, l, sfx)))
    theirs += [m.ctc.weight, m.ctc.bias, m.embed.weight, m.dec.weight_ih, m.dec.weight_hh,
               m.dec.bias_ih, m.dec.bias_hh, m.att_w.weight, m.att_v.weight, m.att_u.weight,
               m.att_v.bias, m.att_vec.weight, m.att_conv.weight, m.out_wo.weight,
               m.out_wo.bias, m.out_w.weight, m.out_w.bias]
    want = go_tensors(c)
    if len(theirs) != len(want) or len(theirs) != len(list(m.parameters())):
        raise SystemExit("torch_bench: %d torch tensors, heed has %d" % (len(theirs), len(want)))
    for t, (name, shape) in zip(theirs, want):
        got = tuple(s for s in t.shape if s != 1) if len(shape) < t.dim() else tuple(t.shape)
        if got != shape:
            raise SystemExit("torch_bench: %s has shape %s, heed %s" % (name, tuple(t.shape), shape))
    return m


def stack_frames(torch, feats, stack):
    """(B, frames, M) -> (B, ceil(frames/stack), stack*M); repeats the last frame."""
    B, frames, M = feats.shape
    T = (frames + stack - 1) // stack
    pad = T * stack - frames
    if pad:
        feats = torch.cat([feats, feats[:, -1:].expand(B, pad, M)], 1)
    return feats.reshape(B, T, stack * M)


def encode(torch, m, feats, c):
    """Encoder + CTC head: h (B, T, 2H), CTC log-probs (B, T, V)."""
    F = torch.nn.functional
    h, _ = m.enc(stack_frames(torch, feats, c["stack"]))
    return h, F.log_softmax(m.ctc(h), -1)


def greedy(torch, m, h, vhb, steps, c):
    """Windowed greedy decoding of one utterance, h (T, 2H), vhb (T, A), for
    exactly steps steps (no early stop at <eos>, so the work is fixed)."""
    F = torch.nn.functional
    T = h.shape[0]
    K, half = c["conv_width"], c["conv_width"] // 2
    wl, wr = c["window_left"], c["window_right"]
    conv_w = m.att_conv.weight  # (nf, 1, K)
    emb_table = m.embed.weight
    s = h.new_zeros(1, c["dec_hidden"])
    ctx = h.new_zeros(1, h.shape[1])
    a_pad = h.new_zeros(T + 2 * half)  # a_{i-1} with K//2 zeros each side
    a_pad[half] = 1  # a_0: one-hot on frame 0
    pos, prev, out = 0, EOS, []
    for _ in range(steps):
        lo, hi = max(0, pos - wl), min(T - 1, pos + wr)
        s = m.dec(torch.cat([emb_table[prev:prev + 1], ctx], 1), s)  # (1, D)
        f = F.conv1d(a_pad[lo:hi + K].view(1, 1, -1), conv_w)[0].t()  # (rows, nf)
        e = m.att_vec(torch.tanh(m.att_u(f) + m.att_w(s) + vhb[lo:hi + 1]))  # (rows, 1)
        aw = torch.softmax(e.view(-1), 0)  # (rows)
        ctx = (aw @ h[lo:hi + 1]).view(1, -1)  # (1, 2H)
        a_pad.zero_()
        a_pad[half + lo:half + hi + 1] = aw
        med = int(torch.searchsorted(torch.cumsum(aw, 0), 0.5))  # first j with cumsum >= 1/2
        pos = lo + min(med, hi - lo)
        o = torch.tanh(m.out_wo(torch.cat([s, ctx], 1)))
        logp = F.log_softmax(m.out_w(o), -1)
        prev = int(logp.argmax())
        out.append(prev)
    return out


def spec_augment(torch, feats, gen):
    """Masks (B, frames, M) in place like model.DefaultSpecAugment()."""
    B, frames, M = feats.shape

    def randint(n):  # uniform in [0, n)
        return int(torch.randint(n, (1,), generator=gen))

    max_w = min(SPEC_TIME_WIDTH, int(SPEC_TIME_RATIO * frames), frames)
    for b in range(B):
        for _ in range(SPEC_FREQ_MASKS):
            w = randint(min(SPEC_FREQ_WIDTH, M) + 1)
            f0 = randint(M - w + 1)
            feats[b, :, f0:f0 + w] = 0
        for _ in range(SPEC_TIME_MASKS):
            w = randint(max_w + 1)
            t0 = randint(frames - w + 1)
            feats[b, t0:t0 + w] = 0


def train_loss(torch, m, feats, ids, c):
    """(1-λ)·attention CE + λ·CTC summed over the batch, and the number of
    attention steps. feats (B, frames, M), ids (B, U) without <eos>."""
    F = torch.nn.functional
    lam = c["ctc_weight"]
    h, clp = encode(torch, m, feats, c)  # (B, T, 2H), (B, T, V)
    B, T, _ = h.shape
    U = ids.shape[1]
    ctc = F.ctc_loss(clp.transpose(0, 1), ids, torch.full((B,), T, dtype=torch.long),
                     torch.full((B,), U, dtype=torch.long), blank=EOS, reduction="sum")
    eos = ids.new_full((B, 1), EOS)
    ys, tgt = torch.cat([eos, ids], 1), torch.cat([ids, eos], 1)  # (B, N)
    N = U + 1
    vhb = m.att_v(h)  # (B, T, A)
    emb = m.embed(ys)  # (B, N, E)
    s = h.new_zeros(B, c["dec_hidden"])
    ctx = h.new_zeros(B, h.shape[2])
    a = h.new_zeros(B, T)
    a[:, 0] = 1
    zs = []
    for i in range(N):  # full attention (TrainWindow off, the default)
        s = m.dec(torch.cat([emb[:, i], ctx], 1), s)  # (B, D)
        f = m.att_conv(a.unsqueeze(1)).transpose(1, 2)  # (B, T, nf)
        e = m.att_vec(torch.tanh(m.att_u(f) + m.att_w(s).unsqueeze(1) + vhb)).squeeze(2)
        a = torch.softmax(e, 1)  # (B, T)
        ctx = torch.bmm(a.unsqueeze(1), h).squeeze(1)  # (B, 2H)
        zs.append(torch.cat([s, ctx], 1))
    logits = m.out_w(torch.tanh(m.out_wo(torch.stack(zs, 1))))  # (B, N, V)
    att = F.cross_entropy(logits.reshape(B * N, -1), tgt.reshape(-1),
                          label_smoothing=c["label_smoothing"], reduction="sum")
    return (1 - lam) * att + lam * ctc, B * N


def blas_info(torch):
    """What BLAS and CPU kernels this torch uses, as far as it reports."""
    info = {"torch": torch.__version__, "threads": torch.get_num_threads(),
            "mkldnn": torch.backends.mkldnn.is_available() and bool(torch.backends.mkldnn.enabled)}
    for line in torch.__config__.show().splitlines():
        line = line.strip().lstrip("- ")
        if line.startswith("CPU capability usage"):
            info["cpu_capability"] = line.split(":", 1)[1].strip()
        if "BLAS_INFO=" in line:
            info["blas_build"] = line.split("BLAS_INFO=", 1)[1].split(",", 1)[0]
    try:
        from threadpoolctl import threadpool_info
        info["threadpools"] = [
            {k: d.get(k) for k in ("internal_api", "architecture", "version", "num_threads",
                                   "threading_layer", "filepath")}
            for d in threadpool_info()]
    except ImportError:
        info["threadpools"] = "threadpoolctl not installed"
    info["env"] = {k: os.environ.get(k) for k in (
        "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
        "LD_LIBRARY_PATH")}
    return info


def check_matmul(torch, np):
    """Compares float32 torch products with a float64 einsum (no BLAS)."""
    rng = np.random.default_rng(7)
    res, ok = [], True
    for m_, k_, n_ in ((256, 320, 384), (1, 256, 768), (37, 512, 256)):
        a = rng.standard_normal((m_, k_)).astype(np.float32)
        b = rng.standard_normal((k_, n_)).astype(np.float32)
        got = torch.mm(torch.from_numpy(a), torch.from_numpy(b)).numpy().astype(np.float64)
        ref = np.einsum("ik,kj->ij", a.astype(np.float64), b.astype(np.float64), optimize=False)
        err = float(np.max(np.abs(got - ref)) / np.max(np.abs(ref)))
        ok = ok and err <= CHECK_TOL
        res.append({"shape": [m_, k_, n_], "rel_err": err})
    return {"ok": ok, "tol": CHECK_TOL, "products": res}


# kern's benchmark products (internal/kern/bench_test.go), keyed by the Go
# sub-benchmark name: layout NN is C = A·B, NT is C = A·Bᵀ with B (n, k).
GEMM_SHAPES = (("MatMul/NN", "NN", 256, 320, 384),
               ("MatMulShapes/NT/m1000_k80_n768", "NT", 1000, 80, 768),
               ("MatMulShapes/NT/m500_k576_n384", "NT", 500, 576, 384),
               ("MatMulShapes/NN/m500_k384_n576", "NN", 500, 384, 576),
               ("MatMulShapes/NT/m1_k256_n768", "NT", 1, 256, 768))


def bench_gemm(torch, reps):
    """GFLOP/s (over wall and process CPU time) of torch.mm on kern's shapes."""
    g = torch.Generator().manual_seed(3)
    out = {}
    for name, layout, m_, k_, n_ in GEMM_SHAPES:
        a = torch.randn(m_, k_, generator=g)
        if layout == "NT":
            b = torch.randn(n_, k_, generator=g).t()  # transposed view, as BLAS sees Bᵀ
        else:
            b = torch.randn(k_, n_, generator=g)
        c = torch.empty(m_, n_)
        inner = max(1, int(2e8 // (2 * m_ * k_ * n_)))  # ~0.2 GFLOP per timing

        def run():
            for _ in range(inner):
                torch.mm(a, b, out=c)

        wall, cpu, _ = median_time(run, reps, 1)
        fl = 2.0 * m_ * k_ * n_ * inner
        out[name] = {"GFLOP/s": fl / wall / 1e9, "cpuGFLOP/s": fl / cpu / 1e9}
    return out


def run(args):
    import numpy as np
    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    c = CFG
    result = {"config": c, "info": blas_info(torch), "check": check_matmul(torch, np)}
    if not result["check"]["ok"]:
        print(json.dumps(result, indent=1))
        print("torch_bench: float32 matmul does not match the float64 reference", file=sys.stderr)
        sys.exit(1)
    m = build(torch, c)
    result["params"] = sum(p.numel() for p in m.parameters())
    parts = args.parts.split(",")
    M = c["num_mel"]

    if "encode" in parts or "decode" in parts:
        m.eval()
        feats = torch.randn(1, ENC_FRAMES, M)
        with torch.inference_mode():
            def enc():
                h, clp = encode(torch, m, feats, c)
                return h[0], clp[0], m.att_v(h[0])

            if "encode" in parts:
                wall, cpu, best = median_time(enc, args.reps, args.warmup)
                sec = ENC_FRAMES / 100
                result["encode"] = {"frames": ENC_FRAMES, "enc_frames": (ENC_FRAMES + 2) // 3,
                                    "ms/audio-s": wall * 1e3 / sec, "cpu-ms/audio-s": cpu * 1e3 / sec,
                                    "best-ms/audio-s": best * 1e3 / sec}
            if "decode" in parts:
                h, _, vhb = enc()
                wall, cpu, best = median_time(lambda: greedy(torch, m, h, vhb, DEC_STEPS, c),
                                              args.reps, args.warmup)
                result["decode"] = {"steps": DEC_STEPS, "window": [c["window_left"], c["window_right"]],
                                    "ms/char": wall * 1e3 / DEC_STEPS, "cpu-ms/char": cpu * 1e3 / DEC_STEPS,
                                    "best-ms/char": best * 1e3 / DEC_STEPS}

    if "train" in parts:
        m.train()
        g = torch.Generator().manual_seed(args.seed)
        U = TRAIN_FRAMES * CHARS_PER_100_FRAMES // 100
        feats = torch.randn(TRAIN_UTTS, TRAIN_FRAMES, M, generator=g)
        ids = torch.randint(1, c["vocab"], (TRAIN_UTTS, U), generator=g)
        opt = torch.optim.Adam(m.parameters(), lr=ADAM_LR, betas=(0.9, 0.999), eps=1e-8)
        losses = []

        def step():
            x = feats.clone()
            spec_augment(torch, x, g)
            opt.zero_grad(set_to_none=True)
            loss, chars = train_loss(torch, m, x, ids, c)
            (loss / chars).backward()
            torch.nn.utils.clip_grad_norm_(m.parameters(), CLIP_NORM)
            opt.step()
            losses.append(float(loss) / chars)

        wall, cpu, best = median_time(step, args.reps, args.warmup)
        sec = TRAIN_UTTS * TRAIN_FRAMES / 100
        if not all(math.isfinite(v) for v in losses):
            raise SystemExit("torch_bench: non-finite training loss %s" % losses)
        result["train"] = {"utts": TRAIN_UTTS, "frames": TRAIN_FRAMES, "chars": U,
                           "audio-s/s": sec / wall, "cpu-audio-s/s": sec / cpu,
                           "best-audio-s/s": sec / best, "ms/step": wall * 1e3,
                           "loss_per_char": [round(v, 4) for v in losses]}

    if "gemm" in parts:
        result["gemm"] = bench_gemm(torch, args.reps)
    print(json.dumps(result, indent=1))


# --- summary table for run.sh ----------------------------------------------

def parse_go(path):
    """Custom metrics of `go test -bench` output: {bench: {unit: [values]}}."""
    out = {}
    with open(path) as f:
        for line in f:
            fs = line.split()
            if not fs or not fs[0].startswith("Benchmark"):
                continue
            name = fs[0].split("-")[0][len("Benchmark"):]
            for i in range(2, len(fs) - 1, 2):
                try:
                    out.setdefault(name, {}).setdefault(fs[i + 1], []).append(float(fs[i]))
                except ValueError:
                    pass
    return out


def load_go(d, prefix):
    """Merges parse_go over the files prefix*.txt in d."""
    go = {}
    for fn in sorted(os.listdir(d)):
        if fn.startswith(prefix) and fn.endswith(".txt"):
            for b, units in parse_go(os.path.join(d, fn)).items():
                for u, v in units.items():
                    go.setdefault(b, {}).setdefault(u, []).extend(v)
    return go


def summarize(d):
    """Prints the side-by-side tables from run.sh's result directory d.

    Files come in pairs, go_TAG_NAME.txt run just before torch_TAG_NAME.json;
    ratios are computed within each pair (median of Go's -count runs against
    the PyTorch median), and the tables show the median pair ratio and the
    range over pairs, over wall time and over process CPU time."""
    sec_enc = ENC_FRAMES / 100
    sec_train = TRAIN_UTTS * TRAIN_FRAMES / 100
    # part, Go benchmark, wall unit, CPU unit (PyTorch JSON), higher is
    # better, Go cpu-ms/op -> CPU unit, description.
    rows = [("encode", "Encode", "ms/audio-s", "cpu-ms/audio-s", False, lambda x: x / sec_enc,
             "encoder, 10 s audio, 1 thread"),
            ("decode", "DecodeStep", "ms/char", "cpu-ms/char", False, lambda x: x,
             "decoder step, 1 thread"),
            ("train", "TrainStep", "audio-s/s", "cpu-audio-s/s", True, lambda x: sec_train / (x / 1e3),
             "train step, 4x3 s, 2 threads")]
    variants = []  # label, {(part, clock): [torch]}, {(part, clock): [go]}, {(part, clock): [ratios]}, gemm
    with open(os.path.join(d, "variants.txt")) as f:
        for line in f:
            tag, label = line.rstrip("\n").split(" ", 1)
            tv, gv, ratios, gemm = {}, {}, {}, {}
            cores, errs = set(), []
            for fn in sorted(os.listdir(d)):
                if not (fn.startswith("torch_%s_" % tag) and fn.endswith(".json")):
                    continue
                with open(os.path.join(d, fn)) as jf:
                    j = json.load(jf)
                gemm.update(j.get("gemm", {}))
                pools = j["info"].get("threadpools")
                if isinstance(pools, list):
                    cores.update("%s %s" % (p["internal_api"], p["architecture"])
                                 for p in pools if p.get("architecture"))
                errs += [r["rel_err"] for r in j["check"]["products"]]
                gofn = os.path.join(d, "go_" + fn[len("torch_"):-len(".json")] + ".txt")
                go = parse_go(gofn) if os.path.exists(gofn) else {}
                for part, gb, unit, cunit, higher, conv, _ in rows:
                    if part not in j:
                        continue
                    gw = go.get(gb, {}).get(unit)
                    gc = go.get(gb, {}).get("cpu-ms/op")
                    pairs = [("wall", j[part][unit], statistics.median(gw) if gw else None),
                             ("cpu", j[part][cunit], conv(gc[0]) if gc and gc[0] > 0 else None)]
                    for clock, t, g in pairs:
                        tv.setdefault((part, clock), []).append(t)
                        if g is not None:
                            gv.setdefault((part, clock), []).append(g)
                            ratios.setdefault((part, clock), []).append(g / t if higher else t / g)
            label += "\n      reported core: %s; float32 matmul vs float64 reference: max rel. err %.2g" % (
                ", ".join(sorted(cores)) or "none (no OpenBLAS loaded)", max(errs) if errs else float("nan"))
            variants.append((label, tv, gv, ratios, gemm))

    print("ratio = Go speed / PyTorch speed (> 1: Go is faster): median over the Go/PyTorch")
    print("pairs run back to back [min-max]. Go, PyTorch: medians of the paired samples.")
    for i, v in enumerate(variants):
        print("  PyTorch[%d] = %s" % (i, v[0]))
    for clock, title in (("wall", "wall time (what a user waits for)"),
                         ("cpu", "process CPU time, all threads (excludes time descheduled)")):
        print()
        print("-- " + title)
        hdr = "%-30s %-14s" % ("benchmark", "unit")
        for i in range(len(variants)):
            hdr += " %8s %10s %-17s" % ("Go", "PyTorch[%d]" % i, "ratio")
        print(hdr)
        for part, _, unit, cunit, _, _, desc in rows:
            line = "%-30s %-14s" % (desc, unit if clock == "wall" else cunit)
            for _, tv, gv, ratios, _ in variants:
                key = (part, clock)
                if key not in tv or key not in ratios:
                    line += " %8s %10s %-17s" % ("-", "-", "")
                    continue
                rs = ratios[key]
                line += " %8.4g %10.4g %-17s" % (statistics.median(gv[key]), statistics.median(tv[key]),
                                                 "%.2f [%.2f-%.2f]" % (statistics.median(rs), min(rs), max(rs)))
            print(line.rstrip())
    print()
    print("all samples (wall):")
    go_all = load_go(d, "go_")
    print("  Go: " + "; ".join("%s %s" % (b, " ".join("%.4g" % x for x in go_all[b].get(u, [])))
                               for _, b, u, _, _, _, _ in rows if b in go_all))
    for i, (_, tv, _, _, _) in enumerate(variants):
        print("  PyTorch[%d]: " % i + "; ".join(
            "%s %s" % (k[0], " ".join("%.4g" % x for x in v)) for k, v in tv.items() if k[1] == "wall"))

    kern = load_go(d, "kern")
    if not kern:
        return
    impls = sorted({b.rsplit("/", 1)[1] for b in kern if b.startswith("MatMul")})
    print()
    print("matmul GFLOP/s, 1 thread, wall / process-CPU time (CPU time excludes descheduling):")
    hdr = "%-32s" % "shape"
    for im in impls:
        hdr += " %15s" % ("kern " + im if im != "gonum" else "gonum")
    for i in range(len(variants)):
        hdr += " %15s" % ("PyTorch[%d]" % i)
    print(hdr)
    names = sorted({b.rsplit("/", 1)[0] for b in kern if b.startswith("MatMul")},
                   key=lambda n: (n.count("/"), n))

    def cell(wall, cpu):
        return " %15s" % ("%.1f / %.1f" % (wall, cpu) if wall is not None else "-")

    for n in names:
        line = "%-32s" % n
        for im in impls:
            r = kern.get(n + "/" + im, {})
            w, c = r.get("GFLOP/s"), r.get("cpuGFLOP/s")
            line += cell(statistics.median(w) if w else None, statistics.median(c) if c else 0)
        for *_, gemm in variants:
            r = gemm.get(n)
            line += cell(r["GFLOP/s"], r["cpuGFLOP/s"]) if r else cell(None, None)
        print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (match GOMAXPROCS)")
    ap.add_argument("--parts", default="encode,decode", help="comma list of encode,decode,train,gemm")
    ap.add_argument("--reps", type=int, default=7, help="timed repetitions (median reported)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed repetitions first")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--summarize", metavar="DIR", help="print run.sh's table from DIR and exit")
    args = ap.parse_args()
    if args.summarize:
        summarize(args.summarize)
        return
    if args.threads < 1 or args.reps < 1 or args.warmup < 0:
        ap.error("threads and reps must be >= 1, warmup >= 0")
    run(args)


if __name__ == "__main__":
    main()
