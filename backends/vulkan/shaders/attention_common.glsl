// What the two ATTENTION shaders (attention.comp, attention_tiled.comp) share: the push
// constants (ops/attention.cpp's Push), the cache element read and the ALiBi slope.
// Included after the specialisation constants DTYPE (of the caches) and HEAD_DIM.

layout(push_constant) uniform Push {
  FloatRef q;
  HalfRef k_cache;
  HalfRef v_cache;
  IntRef pos;
  IntRef seq;
  IntRef block_tables;
  FloatRef out_;
  StatusRef status;
  uint n_tokens;
  uint n_heads;
  uint n_kv_heads;
  uint block_size;
  uint n_seqs;
  uint max_blocks;
  uint n_cache_blocks;
  uint window;   // 0: full causal
  float scale;
  float softcap;  // 0: none
  uint call_id;
  float alibi_max_bias;  // 0: none
  FloatRef partials;     // split-KV (n_splits > 1) only
  uint n_splits;         // 1 in attention_tiled.comp
} p;

// Element i of a cache, counting elements across rows (a q8_0 row is whole blocks).
float cache_at(HalfRef cache, uint i) {
  if (DTYPE == DTYPE_Q8_0) return q8_0_at(cache, i / Q8_BLOCK_ELEMS, i % Q8_BLOCK_ELEMS);
  return DTYPE == DTYPE_F16 ? half_at(cache, i) : FloatRef(cache).v[i];
}

// ALiBi slope of query head h: n2 is the largest power of two <= n_heads, b the max bias;
// 2^(-b (h + 1) / n2) for h < n2, else 2^(-b (2 (h - n2) + 1) / (2 n2)).
float alibi_slope(uint h) {
  if (p.alibi_max_bias == 0.0) return 0.0;
  const uint n2 = 1u << uint(findMSB(p.n_heads));
  const float b = p.alibi_max_bias;
  return h < n2 ? exp2(-b * float(h + 1u) / float(n2)) : exp2(-b * float(2u * (h - n2) + 1u) / float(2u * n2));
}
