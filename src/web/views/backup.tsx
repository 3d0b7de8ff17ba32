/** Settings → Your data: a backup to download, the same file as `mnemo export`, which `mnemo import` restores. */
export function BackupSection() {
  return (
    <section class="panel" aria-labelledby="backup-heading" id="backup">
      <h3 id="backup-heading">Back up your data</h3>
      <p>
        Everything you have here — memories with their history and images, buckets, conversations — in one file, the same as{" "}
        <code>mnemo export</code> writes. <code>mnemo import</code> restores it, into this store or another.
      </p>
      <form method="get" action="/backup" class="row">
        <label class="row">
          <input type="checkbox" name="vectors" value="0" /> Leave out the search index (a file about 10 × smaller; restoring it then
          indexes everything again)
        </label>
        <button type="submit">Download a backup</button>
      </form>
    </section>
  );
}
