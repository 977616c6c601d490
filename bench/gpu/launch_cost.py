#!/usr/bin/env python3
"""The host cost of one kernel launch, as a PyTorch user pays it.

Each step launches --launches tiny kernels (an in-place add on a 1024-float
tensor, a few microseconds of GPU work, less than its launch call) and then
synchronizes, so the step time is the launch calls' time. Run it plain,
under `feedprof record`, or with --torch-profiler (torch.profiler with CUDA
activity), and compare the step times: the difference over --launches is
the profiler's cost per launch.

    python3 launch_cost.py --steps 20 --launches 4000 [--torch-profiler]

Prints step_time_ms (median over the measured steps) and ns_per_launch.
"""
import argparse
import statistics
import time

import torch


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--launches", type=int, default=4000)
    parser.add_argument("--torch-profiler", action="store_true")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("launch_cost: no CUDA device visible to PyTorch")

    x = torch.zeros(1024, device="cuda")

    def step():
        for _ in range(args.launches):
            x.add_(1e-3)
        torch.cuda.synchronize()

    for _ in range(args.warmup):
        step()
    times = []

    def run():
        for _ in range(args.steps):
            begin = time.perf_counter()
            step()
            times.append(time.perf_counter() - begin)

    if args.torch_profiler:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
            run()
    else:
        run()
    median = statistics.median(times)
    print(f"step_time_ms={1000.0 * median:.3f}")
    print(f"ns_per_launch={1e9 * median / args.launches:.1f}")
    # Every launch ran: float32 sums of 1e-3 stay well within 2 %.
    expected = args.launches * (args.warmup + args.steps) * 1e-3
    got = float(x[0])
    if abs(got - expected) > 0.02 * expected:
        raise SystemExit(f"launch_cost: x[0] is {got}, expected {expected:.1f}")


if __name__ == "__main__":
    main()
