/** The CLI's output streams, captured as strings for a test to read. */
export const capture = () => {
  let out = '';
  let err = '';
  return {
    io: { out: (c: Buffer | string) => void (out += c), err: (c: Buffer | string) => void (err += c) },
    out: () => out,
    err: () => err,
  };
};
