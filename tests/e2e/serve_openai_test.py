"""`tessera serve` through the official `openai` Python client, unchanged: greedy
completions equal `tessera generate --temp 0`, streaming equals non-streaming, 32
concurrent streams each equal what they give alone, SmolLM2's chat answer, logprobs,
usage chunks, n, stop, and the client's exceptions for the server's refusals.
"""
import asyncio
import json
import math
import os
import subprocess
import unittest

import httpx
import openai

from serve_support import Server, paths

TESSERA, STORIES, SMOLLM2 = paths()
QUESTION = "What is the capital of France? Answer in one sentence."


def client(server, key="none"):
    return openai.OpenAI(base_url=server.url + "/v1", api_key=key, max_retries=0, timeout=120)


def generate(prompt, n):
    """What `tessera generate --temp 0` prints for `prompt`: the prompt and its continuation."""
    out = subprocess.run([TESSERA, "generate", "-m", STORIES, "-p", prompt, "-n", str(n), "--temp", "0"],
                         capture_output=True, text=True, check=True)
    return out.stdout


class StoriesServer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server(TESSERA, ["-m", STORIES, "--chat-template", "chatml"])
        cls.client = client(cls.server)

    @classmethod
    def tearDownClass(cls):
        code = cls.server.stop()
        assert code == 0, cls.server.stderr()

    def test_greedy_completion_is_what_generate_prints(self):
        for prompt in ["Once upon a time", "The little dog", "Lily and Ben went to the park"]:
            r = self.client.completions.create(model="stories260K", prompt=prompt, max_tokens=48, temperature=0)
            self.assertEqual(prompt + r.choices[0].text + "\n", generate(prompt, 48))
            self.assertEqual(r.object, "text_completion")
            self.assertEqual(r.model, "stories260K")
            self.assertIn(r.choices[0].finish_reason, ("length", "stop"))

    def test_token_id_prompts_and_lists_of_prompts(self):
        out = subprocess.run([TESSERA, "generate", "-m", STORIES, "-p", "Once upon a time", "-n", "1", "--json"],
                             capture_output=True, text=True, check=True)
        ids = json.loads(out.stdout.splitlines()[0])["prompt_ids"]

        def complete(prompt, n=1):
            return self.client.completions.create(model="stories260K", prompt=prompt, max_tokens=16, temperature=0,
                                                  n=n)

        text, dog = complete("Once upon a time"), complete("The little dog")
        by_ids = complete(ids)
        self.assertEqual(by_ids.choices[0].text, text.choices[0].text)
        self.assertEqual(by_ids.usage.prompt_tokens, len(ids))
        both = complete(["Once upon a time", "The little dog"], n=2)
        self.assertEqual([c.index for c in both.choices], [0, 1, 2, 3])
        self.assertEqual([c.text for c in both.choices], [text.choices[0].text] * 2 + [dog.choices[0].text] * 2)
        self.assertEqual(both.usage.prompt_tokens, text.usage.prompt_tokens + dog.usage.prompt_tokens)
        lists = complete([ids, ids])
        self.assertEqual([c.text for c in lists.choices], [text.choices[0].text] * 2)

    def test_streaming_gives_the_same_text_as_a_whole_response(self):
        whole = self.client.chat.completions.create(
            model="stories260K", messages=[{"role": "user", "content": "Tell me a story."}], max_tokens=40,
            temperature=0)
        chunks = list(self.client.chat.completions.create(
            model="stories260K", messages=[{"role": "user", "content": "Tell me a story."}], max_tokens=40,
            temperature=0, stream=True))
        self.assertEqual(chunks[0].choices[0].delta.role, "assistant")
        text = "".join(c.choices[0].delta.content or "" for c in chunks)
        self.assertEqual(text, whole.choices[0].message.content)
        self.assertEqual(chunks[-1].choices[0].finish_reason, whole.choices[0].finish_reason)
        self.assertEqual(len({c.id for c in chunks}), 1)

    def test_usage_chunk_ends_a_stream_that_asks_for_it(self):
        chunks = list(self.client.completions.create(model="stories260K", prompt="Once upon a time", max_tokens=8,
                                                     temperature=0, stream=True, extra_body={"ignore_eos": True},
                                                     stream_options={"include_usage": True}))
        self.assertEqual(chunks[-1].choices, [])
        self.assertEqual((chunks[-1].usage.prompt_tokens, chunks[-1].usage.completion_tokens,
                          chunks[-1].usage.total_tokens), (5, 8, 13))
        self.assertTrue(all(c.usage is None for c in chunks[:-1]))

    def test_thirty_two_concurrent_streams_each_give_what_they_give_alone(self):
        prompts = [f"Once upon a time, a {animal}" for animal in
                   ["cat", "dog", "bird", "fish", "frog", "bear", "duck", "cow"]] * 4

        def args(i):
            # Half greedy, half sampled with a seed: both must not depend on the batch.
            sampled = i % 2 == 1
            return dict(model="stories260K", prompt=prompts[i], max_tokens=64, stream=True,
                        temperature=0.9 if sampled else 0, seed=1000 + i, extra_body={"ignore_eos": True})

        alone = []
        for i in range(32):
            alone.append("".join(c.choices[0].text for c in self.client.completions.create(**args(i))))

        async def together():
            async with openai.AsyncOpenAI(base_url=self.server.url + "/v1", api_key="none", max_retries=0,
                                          http_client=httpx.AsyncClient(limits=httpx.Limits(max_connections=64),
                                                                        timeout=120)) as aclient:
                async def one(i):
                    return "".join([c.choices[0].text async for c in await aclient.completions.create(**args(i))])
                return await asyncio.gather(*(one(i) for i in range(32)))

        self.assertEqual(asyncio.run(together()), alone)
        self.assertTrue(all(len(t) > 0 for t in alone))

    def test_logprobs_of_a_greedy_chat(self):
        r = self.client.chat.completions.create(model="stories260K", messages=[{"role": "user", "content": "Hi"}],
                                                max_tokens=6, temperature=0, logprobs=True, top_logprobs=3,
                                                extra_body={"ignore_eos": True})
        content = r.choices[0].logprobs.content
        self.assertEqual(len(content), r.usage.completion_tokens)
        self.assertEqual("".join(t.token for t in content), r.choices[0].message.content)
        for t in content:
            self.assertEqual(len(t.top_logprobs), 3)
            self.assertEqual(t.top_logprobs[0].token, t.token)  # greedy: the most likely one
            self.assertEqual(t.top_logprobs[0].logprob, t.logprob)
            self.assertTrue(t.top_logprobs[0].logprob >= t.top_logprobs[1].logprob >= t.top_logprobs[2].logprob)
            self.assertLessEqual(sum(math.exp(a.logprob) for a in t.top_logprobs), 1.0 + 1e-6)
            self.assertEqual(bytes(t.bytes).decode(), t.token)

    def test_legacy_completion_logprobs(self):
        r = self.client.completions.create(model="stories260K", prompt="Once upon a time", max_tokens=5,
                                           temperature=0, logprobs=2, extra_body={"ignore_eos": True})
        lp = r.choices[0].logprobs
        self.assertEqual("".join(lp.tokens), r.choices[0].text)
        self.assertEqual(len(lp.token_logprobs), 5)
        self.assertEqual([len(t) for t in lp.top_logprobs], [2] * 5)
        self.assertEqual(lp.text_offset[0], 0)

    def test_n_choices_with_a_seed_are_numbered_and_replay(self):
        kwargs = dict(model="stories260K", messages=[{"role": "user", "content": "Once"}], max_tokens=12, n=3,
                      temperature=1.0, seed=7)
        a = self.client.chat.completions.create(**kwargs)
        b = self.client.chat.completions.create(**kwargs)
        self.assertEqual([c.index for c in a.choices], [0, 1, 2])
        self.assertEqual([c.message.content for c in a.choices], [c.message.content for c in b.choices])
        self.assertGreater(len({c.message.content for c in a.choices}), 1)

    def test_stop_text_ends_the_answer_before_it(self):
        full = self.client.completions.create(model="stories260K", prompt="Once upon a time", max_tokens=48,
                                              temperature=0).choices[0].text
        self.assertIn(".", full)
        r = self.client.completions.create(model="stories260K", prompt="Once upon a time", max_tokens=48,
                                           temperature=0, stop=["."])
        self.assertEqual(r.choices[0].text, full[:full.index(".")])
        self.assertEqual(r.choices[0].finish_reason, "stop")

    def test_frequency_penalty_changes_a_greedy_answer(self):
        plain = self.client.completions.create(model="stories260K", prompt="Once upon a time", max_tokens=48,
                                               temperature=0).choices[0].text
        penalised = self.client.completions.create(model="stories260K", prompt="Once upon a time", max_tokens=48,
                                                   temperature=0, frequency_penalty=2.0,
                                                   presence_penalty=1.0).choices[0].text
        self.assertNotEqual(plain, penalised)

    def test_models_lists_the_served_model(self):
        self.assertEqual([m.id for m in self.client.models.list()], ["stories260K"])

    def test_refusals_raise_the_clients_exceptions(self):
        with self.assertRaises(openai.NotFoundError) as e:
            self.client.completions.create(model="gpt-4o", prompt="Once")
        self.assertEqual(e.exception.body["code"], "model_not_found")
        with self.assertRaises(openai.BadRequestError) as e:
            self.client.completions.create(model="stories260K", prompt="Once", max_tokens=100000)
        self.assertEqual(e.exception.body["code"], "context_length_exceeded")
        with self.assertRaises(openai.BadRequestError) as e:
            self.client.chat.completions.create(model="stories260K", messages=[])
        self.assertEqual(e.exception.body["param"], "messages")
        with self.assertRaises(openai.BadRequestError) as e:
            self.client.chat.completions.create(model="stories260K", messages=[{"role": "user", "content": "x"}],
                                                temperature=5)
        self.assertEqual(e.exception.body["message"], "invalid value for 'temperature': 5 is not in [0, 2]")
        with self.assertRaises(openai.BadRequestError):
            list(self.client.completions.create(model="stories260K", prompt=[[]], stream=True))
        # ... and the server goes on.
        self.assertEqual(self.client.completions.create(model="stories260K", prompt="Once", max_tokens=2).object,
                         "text_completion")


class ApiKey(unittest.TestCase):
    def test_the_key_is_required_and_health_stays_open(self):
        with Server(TESSERA, ["-m", STORIES, "--api-key", "sesame", "--alias", "tiny"]) as server:
            with self.assertRaises(openai.AuthenticationError) as e:
                client(server, "wrong").completions.create(model="tiny", prompt="Once", max_tokens=2)
            self.assertEqual(e.exception.body["code"], "invalid_api_key")
            r = client(server, "sesame").completions.create(model="tiny", prompt="Once", max_tokens=2)
            self.assertEqual(r.model, "tiny")
            self.assertEqual(server.get("/health"), '{"status":"ok"}')
            self.assertEqual(server.stop(), 0)


class SmolLM2Chat(unittest.TestCase):
    def setUp(self):
        if SMOLLM2 is None:
            if os.environ.get("CI"):
                self.fail("SmolLM2-135M-Instruct is not fetched (scripts/fetch-model.sh), and CI must run this")
            self.skipTest("SmolLM2-135M-Instruct is not fetched: run scripts/fetch-model.sh")

    def test_answers_the_capital_of_france_greedy(self):
        with Server(TESSERA, ["-m", SMOLLM2, "--kv-mem", "64M"]) as server:
            c = client(server)
            r = c.chat.completions.create(model="SmolLM2-135M-Instruct.Q4_1",
                                          messages=[{"role": "user", "content": QUESTION}], temperature=0)
            self.assertEqual(r.choices[0].message.content, "The capital of France is Paris.")
            self.assertEqual(r.choices[0].finish_reason, "stop")
            streamed = "".join(ch.choices[0].delta.content or "" for ch in c.chat.completions.create(
                model="SmolLM2-135M-Instruct.Q4_1", messages=[{"role": "user", "content": QUESTION}], temperature=0,
                stream=True))
            self.assertEqual(streamed, "The capital of France is Paris.")
            self.assertEqual(server.stop(), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
