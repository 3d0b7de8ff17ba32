/** Bucket names are unique without regard to case or surrounding space. */
export function sameBucketName(name: string, wanted: string): boolean {
  return name.toLocaleLowerCase() === wanted.trim().toLocaleLowerCase();
}
