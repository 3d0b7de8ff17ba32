/**
 * A memory search's score (0–1, core/memories searchMemories) under which the memory is probably
 * unrelated to the query: the search returns the best `count` memories whatever they score, so a
 * small store answers "tea" with "My dog is called Biscuit" at 0.00. The faces say so.
 */
export const UNRELATED_BELOW = 0.3;

export const probablyUnrelated = (score: number | undefined): boolean => score !== undefined && score < UNRELATED_BELOW;
