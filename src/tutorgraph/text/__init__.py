"""The text layer: how every offline reader (grader, tutor, search, course builder, interviewer,
evaluation) reads English about programming and machine learning. One place for each decision:

- `tokens`: lower-case ASCII words, maths symbols spelled out (`normalise`, `words`).
- `stemming`: the one Snowball stemmer (`stem`, `stem_words` for bm25s), irregular verbs
  (`idea_stem`), content stems, bigrams, one-typo nearness.
- `stopwords`: word sets named by purpose (`ANSWER_STOPWORDS`, `IDEA_STOPWORDS`,
  `QUESTION_STOPWORDS`, `NEGATIONS`, `FILLERS`); they differ on purpose, each says why.
- `negation`: what denies and how far (`NEGATION_SCOPE`, `negated_stems`).
- `opposites`: swaps that turn a right statement wrong (`OPPOSITES`, `COMPARATIVES`).
- `notation`: `pass^k`, `x^2` kept as one token.
- `markdown`: Markdown as prose: sentences, code blocks, the first table told as sentences.
- `query`: a learner's question spelled out for search (`expand`, `stem_set`).
- `meaning`: the paraphrase lexicon (`lexicon.yaml`), numbers and O-notation as tokens, and
  `find`: does a text say an idea, with negation, order and opposites.
- `lexicon`: the lexicon file's format (groups with examples, counterexamples, `when` context);
  `lexicon_check`: what `tutorgraph kb lexicon` refuses (collisions, everyday words read as a
  technical idea, examples not read as their group; `everyday_words.txt`).

Packages above use these through their public names only (tests/test_layers.py checks it)."""
