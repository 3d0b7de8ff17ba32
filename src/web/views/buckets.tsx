import type { Bucket } from "../../schemas/memories.js";
import { withQuery } from "../format.js";
import { ActionForm, Layout, type PageContext, typedInto } from "./layout.js";

export function BucketsPage(props: { ctx: PageContext; buckets: Bucket[] }) {
  const { ctx } = props;
  const typed = typedInto(ctx, "/buckets");
  return (
    <Layout title="Buckets" page="buckets" ctx={ctx}>
      <h1>Buckets</h1>
      <ActionForm ctx={ctx} action="/buckets" back="/buckets" class="panel">
        <div class="row">
          <div class="field grow">
            <label for="bucket-name">New bucket</label>
            <input id="bucket-name" type="text" name="name" value={typed.name} required maxlength={100} />
          </div>
          <div class="field grow">
            <label for="bucket-description">
              Description <span class="hint">(optional)</span>
            </label>
            <input id="bucket-description" type="text" name="description" value={typed.description} maxlength={500} />
          </div>
          <button type="submit">Create bucket</button>
        </div>
      </ActionForm>
      <table class="cards">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Description</th>
            <th scope="col" class="num">
              Memories
            </th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {props.buckets.map((bucket) => {
            const renaming = typedInto(ctx, `/buckets/${bucket.id}/rename`);
            return (
              <tr>
                <td class="title" data-label="Name">
                  <a href={withQuery("/memories", { bucket: bucket.id })}>{bucket.name}</a>
                </td>
                <td data-label="Description">{bucket.description ?? ""}</td>
                <td class="num" data-label="Memories">
                  {bucket.memoryCount}
                </td>
                <td data-label="Actions">
                  <div class="actions">
                    <details open={renaming.name !== undefined}>
                      <summary>Rename</summary>
                      <ActionForm ctx={ctx} action={`/buckets/${bucket.id}/rename`} back="/buckets">
                        <div class="field">
                          <label for={`name-${bucket.id}`}>Name</label>
                          <input
                            id={`name-${bucket.id}`}
                            type="text"
                            name="name"
                            value={renaming.name ?? bucket.name}
                            required
                            maxlength={100}
                          />
                        </div>
                        <div class="field">
                          <label for={`description-${bucket.id}`}>Description</label>
                          <input
                            id={`description-${bucket.id}`}
                            type="text"
                            name="description"
                            value={renaming.description ?? bucket.description ?? ""}
                            maxlength={500}
                          />
                        </div>
                        <p>
                          <button type="submit">Save</button>
                        </p>
                      </ActionForm>
                    </details>
                    {bucket.id === "1" ? (
                      <span class="hint">The default bucket: it cannot be deleted.</span>
                    ) : (
                      <ActionForm ctx={ctx} action={`/buckets/${bucket.id}/delete`} back="/buckets">
                        <button type="submit" class="link">
                          Delete
                        </button>
                      </ActionForm>
                    )}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Layout>
  );
}
