import type { Bucket } from "../../schemas/memories.js";
import { withQuery } from "../format.js";
import { ActionForm, FieldError, type FieldForms, Layout, type PageContext, refusedField, typedInto } from "./layout.js";

/** The fields of the create and rename forms an error is shown under. */
const NAMED = ["name", "description"] as const;

export function BucketsPage(props: { ctx: PageContext; buckets: Bucket[] }) {
  const { ctx } = props;
  const typed = typedInto(ctx, "/buckets");
  const fieldForms: FieldForms = {
    "/buckets": NAMED,
    ...Object.fromEntries(props.buckets.map((bucket) => [`/buckets/${bucket.id}/rename`, NAMED])),
  };
  return (
    <Layout title="Buckets" page="buckets" ctx={ctx} fieldForms={fieldForms}>
      <h1>Buckets</h1>
      <ActionForm ctx={ctx} action="/buckets" back="/buckets" class="panel">
        <div class="row">
          <div class="field grow">
            <label for="bucket-name">New bucket</label>
            <input
              id="bucket-name"
              type="text"
              name="name"
              value={typed.name}
              required
              maxlength={100}
              {...refusedField(ctx, "/buckets", "name")}
            />
            <FieldError ctx={ctx} action="/buckets" name="name" />
          </div>
          <div class="field grow">
            <label for="bucket-description">
              Description <span class="hint">(optional)</span>
            </label>
            <input
              id="bucket-description"
              type="text"
              name="description"
              value={typed.description}
              maxlength={500}
              {...refusedField(ctx, "/buckets", "description")}
            />
            <FieldError ctx={ctx} action="/buckets" name="description" />
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
            const rename = `/buckets/${bucket.id}/rename`;
            const renaming = typedInto(ctx, rename);
            return (
              <tr>
                <td class="title" data-label="Name">
                  <a href={withQuery("/memories", { bucket: bucket.id })} dir="auto">
                    {bucket.name}
                  </a>
                </td>
                <td data-label="Description">{bucket.description ? <bdi>{bucket.description}</bdi> : null}</td>
                <td class="num" data-label="Memories">
                  {bucket.memoryCount}
                </td>
                <td data-label="Actions">
                  <div class="actions">
                    <details open={renaming.name !== undefined}>
                      <summary>Rename</summary>
                      <ActionForm ctx={ctx} action={rename} back="/buckets">
                        <div class="field">
                          <label for={`name-${bucket.id}`}>Name</label>
                          <input
                            id={`name-${bucket.id}`}
                            type="text"
                            name="name"
                            value={renaming.name ?? bucket.name}
                            required
                            maxlength={100}
                            {...refusedField(ctx, rename, "name")}
                          />
                          <FieldError ctx={ctx} action={rename} name="name" />
                        </div>
                        <div class="field">
                          <label for={`description-${bucket.id}`}>Description</label>
                          <input
                            id={`description-${bucket.id}`}
                            type="text"
                            name="description"
                            value={renaming.description ?? bucket.description ?? ""}
                            maxlength={500}
                            {...refusedField(ctx, rename, "description")}
                          />
                          <FieldError ctx={ctx} action={rename} name="description" />
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
