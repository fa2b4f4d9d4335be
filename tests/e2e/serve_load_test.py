"""A bounded load test of `tessera serve` on loopback: three rounds of 400 requests
from 64 concurrent clients (streaming and not, chat and completions), every fifth
client leaving after three chunks of a long stream. Every request must complete with
the text it gives alone, or (the ones that left) end cancelled: none lost, none
duplicated, the server's counters agreeing; all KV blocks free after each round, and
the server's RSS flat from the second round to the third (the first warms the
allocator's arenas and the KV pages up). Bounded by its request count: about 25 s on
two cores.

Under AddressSanitizer (TESSERA_SANITIZED=1) the RSS is not compared: its quarantine
holds freed memory on purpose, and LeakSanitizer checks the server at exit instead.
"""
import asyncio
import os
import sys
import time
import unittest

import httpx
import openai

from serve_support import Server, paths

TESSERA, STORIES, _ = paths()
REQUESTS = 400
CONCURRENCY = 64
LEAVE_EVERY = 5  # request i leaves mid-stream when i % 5 == 4
PROMPTS = ["Once upon a time", "The little dog", "Lily saw a big", "Tom and Sue played", "One day, a bird"]
ROUNDS = 3
RSS_GROWTH_LIMIT_KB = 2048


def kind(i):
    """What request i is: ('leave', _) or (endpoint, stream) and its prompt and token limit."""
    if i % LEAVE_EVERY == LEAVE_EVERY - 1:
        return "leave", True
    return ("chat" if i % 2 else "completion"), i % 3 == 0


def prompt_of(i):
    return PROMPTS[i % len(PROMPTS)]


def max_tokens_of(i):
    return 16 + 8 * (i % 4)


async def run_one(aclient, i):
    """('done', id, text) or ('left', id, chunks received)."""
    what, stream = kind(i)
    common = dict(model="stories260K", temperature=0, max_tokens=max_tokens_of(i))
    if what == "leave":
        s = await aclient.completions.create(prompt=prompt_of(i), stream=True, model="stories260K", max_tokens=1500,
                                             extra_body={"ignore_eos": True})
        chunks, rid = 0, None
        async for chunk in s:
            chunks += 1
            rid = chunk.id
            if chunks == 3:
                break
        await s.close()
        return "left", rid, chunks
    if what == "completion":
        if stream:
            s = await aclient.completions.create(prompt=prompt_of(i), stream=True, **common)
            parts = [c async for c in s]
            return "done", parts[0].id, "".join(c.choices[0].text for c in parts)
        r = await aclient.completions.create(prompt=prompt_of(i), **common)
        return "done", r.id, r.choices[0].text
    messages = [{"role": "user", "content": prompt_of(i)}]
    if stream:
        s = await aclient.chat.completions.create(messages=messages, stream=True, **common)
        parts = [c async for c in s]
        return "done", parts[0].id, "".join(c.choices[0].delta.content or "" for c in parts)
    r = await aclient.chat.completions.create(messages=messages, **common)
    return "done", r.id, r.choices[0].message.content


async def run_round(url):
    # No more connections than clients: the server's 80 threads then always have some to spare.
    limits = httpx.Limits(max_connections=CONCURRENCY, max_keepalive_connections=CONCURRENCY)
    async with openai.AsyncOpenAI(base_url=url + "/v1", api_key="none", max_retries=0,
                                  http_client=httpx.AsyncClient(limits=limits, timeout=120)) as aclient:
        gate = asyncio.Semaphore(CONCURRENCY)

        async def gated(i):
            async with gate:
                return await run_one(aclient, i)
        return await asyncio.gather(*(gated(i) for i in range(REQUESTS)), return_exceptions=True)


def expected_texts(server):
    """What each (endpoint, prompt, limit) gives alone."""
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="none", max_retries=0)
    expected = {}
    for i in range(REQUESTS):
        what, _ = kind(i)
        key = (what, prompt_of(i), max_tokens_of(i))
        if what == "leave" or key in expected:
            continue
        if what == "completion":
            expected[key] = client.completions.create(model="stories260K", prompt=prompt_of(i), temperature=0,
                                                      max_tokens=max_tokens_of(i)).choices[0].text
        else:
            expected[key] = client.chat.completions.create(
                model="stories260K", messages=[{"role": "user", "content": prompt_of(i)}], temperature=0,
                max_tokens=max_tokens_of(i)).choices[0].message.content
    return expected


def finished_counts(samples):
    return {k.split('"')[1]: v for k, v in samples.items() if k.startswith("tessera_requests_finished_total{")}


class LoadTest(unittest.TestCase):
    def test_rounds_with_clients_leaving(self):
        # A small KV cache (about 100 blocks: the first round uses every one, and preempts) and
        # a few more HTTP threads than clients, so that the first round touches all the memory
        # the server will use.
        with Server(TESSERA, ["-m", STORIES, "--chat-template", "chatml", "--ctx", "2048", "--kv-mem", "3M",
                              "--max-batch", "64", "--http-threads", "80"]) as server:
            expected = expected_texts(server)
            rss = []
            start = time.monotonic()
            for round_number in range(ROUNDS):
                before = finished_counts(server.metrics())
                results = asyncio.run(run_round(server.url))
                errors = [r for r in results if isinstance(r, BaseException)]
                self.assertEqual(errors, [], f"round {round_number}")
                done = [r for r in results if r[0] == "done"]
                left = [r for r in results if r[0] == "left"]
                self.assertEqual(len(left), REQUESTS // LEAVE_EVERY)
                self.assertEqual(len(done), REQUESTS - len(left))
                # Each answer is the one it gives alone: nothing mixed, lost or doubled.
                for i, r in enumerate(results):
                    what, _ = kind(i)
                    if what != "leave":
                        self.assertEqual(r[2], expected[(what, prompt_of(i), max_tokens_of(i))], f"request {i}")
                    else:
                        self.assertEqual(r[2], 3, f"request {i}")
                self.assertEqual(len({r[1] for r in results}), REQUESTS, "response ids are unique")
                samples = server.wait_metric("tessera_kv_blocks_used", 0)
                self.assertEqual(samples["tessera_kv_blocks_used"], 0)
                self.assertEqual(samples["tessera_requests_running"], 0)
                self.assertEqual(samples["tessera_requests_waiting"], 0)
                after = finished_counts(samples)
                delta = {k: after.get(k, 0) - before.get(k, 0) for k in after}
                self.assertEqual(delta.get("cancelled", 0), len(left), delta)
                self.assertEqual(sum(delta.values()), REQUESTS, delta)
                rss.append(server.rss_kb())
            elapsed = time.monotonic() - start
            print(f"{ROUNDS} rounds of {REQUESTS} requests in {elapsed:.1f} s; RSS after each: {rss} kB",
                  file=sys.stderr)
            if os.environ.get("TESSERA_SANITIZED") != "1":
                self.assertLessEqual(rss[2] - rss[1], RSS_GROWTH_LIMIT_KB, f"RSS after each round: {rss} kB")
            self.assertEqual(server.stop(), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
