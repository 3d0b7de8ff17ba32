/** One value per owner (a service's context), made on first use by `make` and dropped with the owner. */
export function onePer<O extends object, V>(make: (owner: O) => V): (owner: O) => V {
  const made = new WeakMap<O, V>();
  return (owner) => {
    let value = made.get(owner);
    if (value === undefined) made.set(owner, (value = make(owner)));
    return value;
  };
}
