/**
 * Bucket names are unique without regard to case, surrounding space, or how the same letters are
 * encoded: "Café" typed as é or as e + a combining accent, "Ｗｏｒｋ" in full-width letters, or
 * "Work" with a zero-width space in it read the same in every list, and were each a bucket of
 * their own. Compared in NFKC, without the characters that render as nothing; stored as given.
 */
export function sameBucketName(name: string, wanted: string): boolean {
  return comparable(name) === comparable(wanted);
}

function comparable(name: string): string {
  return name
    .normalize("NFKC")
    .replace(/\p{Default_Ignorable_Code_Point}/gu, "")
    .trim()
    .toLowerCase();
}
