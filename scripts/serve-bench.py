#!/usr/bin/env python3
"""Load generator for `tessera serve` (or any OpenAI-compatible server): N concurrent
streaming clients, each sending requests one after the other, measured at the client.
The clients are spread over --processes Python processes (one asyncio loop parsing
every chunk of 64 streams is slower than a small model generating them).

Prints the output throughput (completion tokens per second of wall time) and the
median and p99 of TTFT (request sent to first content) and TPOT (mean time per token
after the first, per request). Runs with the openai package of scripts/install-deps.sh's
venv:

  ~/.cache/tessera/venv/bin/python scripts/serve-bench.py --url http://127.0.0.1:8080 \
      --concurrency 8 --requests 64 --max-tokens 128 [--processes 4] [--prompt TEXT] [--chat] [--json]
"""
import argparse
import asyncio
import json
import multiprocessing
import statistics
import time

import httpx
import openai


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def one_request(client, args, index):
    """(ttft_s, tpot_s or None, completion tokens) of one streamed request."""
    common = dict(model=args.model, max_tokens=args.max_tokens, temperature=0, stream=True,
                  stream_options={"include_usage": True}, extra_body={"ignore_eos": True})
    prompt = f"{args.prompt} ({index})" if args.vary else args.prompt
    start = time.perf_counter()
    if args.chat:
        stream = await client.chat.completions.create(messages=[{"role": "user", "content": prompt}], **common)
    else:
        stream = await client.completions.create(prompt=prompt, **common)
    first = last = None
    tokens = 0
    async for chunk in stream:
        if chunk.usage:
            tokens = chunk.usage.completion_tokens
        if chunk.choices:
            text = chunk.choices[0].delta.content if args.chat else chunk.choices[0].text
            if text:
                last = time.perf_counter()
                first = first or last
    ttft = (first or time.perf_counter()) - start
    tpot = (last - first) / (tokens - 1) if first and tokens > 1 else None
    return ttft, tpot, tokens


async def run(args, concurrency, indexes, start_at):
    """Results of requests `indexes` from `concurrency` clients, starting at `start_at` (wall clock)."""
    limits = httpx.Limits(max_connections=concurrency + 8, max_keepalive_connections=concurrency + 8)
    async with openai.AsyncOpenAI(base_url=args.url + "/v1", api_key=args.api_key, max_retries=0,
                                  http_client=httpx.AsyncClient(limits=limits, timeout=600)) as client:
        queue = list(indexes)
        results = []

        async def worker():
            while queue:
                results.append(await one_request(client, args, queue.pop()))

        await asyncio.sleep(max(0.0, start_at - time.time()))
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return results


def run_process(job):
    args, concurrency, indexes, start_at = job
    return asyncio.run(run(args, concurrency, indexes, start_at))


def model_id(args):
    return openai.OpenAI(base_url=args.url + "/v1", api_key=args.api_key).models.list().data[0].id


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", default="http://127.0.0.1:8080")
    p.add_argument("--api-key", default="none")
    p.add_argument("--model", default="", help="default: the first one /v1/models lists")
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--requests", type=int, default=64)
    p.add_argument("--max-tokens", type=int, default=128)
    p.add_argument("--prompt", default="Once upon a time")
    p.add_argument("--vary", action="store_true", help="make each prompt different (no prefix-cache hits)")
    p.add_argument("--chat", action="store_true", help="/v1/chat/completions instead of /v1/completions")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--processes", type=int, default=1, help="client processes sharing the concurrency")
    args = p.parse_args()
    args.model = args.model or model_id(args)
    processes = max(1, min(args.processes, args.concurrency))
    start_at = time.time() + 1.0  # every process ready before the clock starts
    jobs = [(args, len(range(k, args.concurrency, processes)), range(k, args.requests, processes), start_at)
            for k in range(processes)]
    with multiprocessing.Pool(processes) as pool:
        results = [r for part in pool.map(run_process, jobs) for r in part]
    seconds = time.time() - start_at
    ttft = [r[0] * 1e3 for r in results]
    tpot = [r[1] * 1e3 for r in results if r[1] is not None]
    tokens = sum(r[2] for r in results)
    report = {
        "concurrency": args.concurrency, "requests": len(results), "completion_tokens": tokens,
        "seconds": round(seconds, 2), "output_tokens_per_s": round(tokens / seconds, 1),
        "ttft_ms_median": round(statistics.median(ttft), 1), "ttft_ms_p99": round(percentile(ttft, 0.99), 1),
        "tpot_ms_median": round(statistics.median(tpot), 2) if tpot else None,
        "tpot_ms_p99": round(percentile(tpot, 0.99), 2) if tpot else None,
    }
    if args.json:
        print(json.dumps(report))
    else:
        print(f"concurrency {report['concurrency']}: {report['requests']} requests, {tokens} tokens in "
              f"{report['seconds']} s = {report['output_tokens_per_s']} tok/s; TTFT median "
              f"{report['ttft_ms_median']} ms, p99 {report['ttft_ms_p99']} ms; TPOT median "
              f"{report['tpot_ms_median']} ms, p99 {report['tpot_ms_p99']} ms")


if __name__ == "__main__":
    main()
