#!/usr/bin/env python3
"""A small PyTorch training loop that shows the usual feeding problems.

Its DataLoader decodes synthetic "images" on the CPU (``--workers N`` worker
processes), the loop calls ``loss.item()`` every step (a hidden
synchronization) and marks each step with an NVTX range, so
``feedprof record -- python train.py`` and ``feedprof analyze`` have
something real to find.

    python train.py --steps 50 --workers 2 --batch 64 --decode-cost 40
"""
import argparse
import time

import torch
from torch.utils.data import DataLoader, Dataset


class SyntheticImages(Dataset):
    """Images "decoded" on the CPU with a tunable per-sample cost."""

    def __init__(self, size, decode_cost):
        self.size = size
        self.decode_cost = decode_cost

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        generator = torch.Generator().manual_seed(index)
        image = torch.rand(3, 64, 64, generator=generator)
        for _ in range(self.decode_cost):  # stands in for JPEG decode + augment
            image = (image * 1.0001).clamp_(0, 1)
        return image, index % 10


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--decode-cost", type=int, default=40)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(32, 32, 3, padding=1), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
        torch.nn.Linear(32, 10)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(SyntheticImages(args.steps * args.batch, args.decode_cost),
                        batch_size=args.batch, num_workers=args.workers)
    nvtx = torch.cuda.nvtx if device.type == "cuda" else None

    begin = time.perf_counter()
    steps = 0
    for images, labels in loader:
        if nvtx:
            nvtx.range_push("step")
        images, labels = images.to(device), labels.to(device)
        loss = torch.nn.functional.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        last_loss = loss.item()  # hidden sync: waits for the GPU every step
        if nvtx:
            nvtx.range_pop()
        steps += 1
    elapsed = time.perf_counter() - begin
    print(f"expected_verdict=preprocessing_bound")
    print(f"steps={steps}")
    print(f"step_time_ms={1000.0 * elapsed / max(steps, 1):.3f}")
    print(f"final_loss={last_loss:.4f}")


if __name__ == "__main__":
    main()
