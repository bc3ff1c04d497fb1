import { useState, type SetStateAction } from "react";

import { errorMessage, refusal } from "../api/client";

/** Each field's problem, by the field's name. */
export type FieldErrors<Field extends string> = Partial<Record<Field, string>>;

/** What a refusal's body says: the problems of the form's fields, and the others. */
type Refusal<Field extends string> = { fields: FieldErrors<Field>; other: string[] };

/**
 * A form's text (a string per field, or another value), each field's problem, the form's other
 * problems (above its button) and what its last send did. `start` begins a send with the form's
 * own check; `failed` shows why the server refused it (on the fields `split` names, else above
 * the button); `finish` says what was done.
 */
export function useForm<Text extends object, Field extends string = keyof Text & string>(
  initial: Text,
) {
  const [text, setText] = useState<Text>(initial);
  const [errors, setErrors] = useState<FieldErrors<Field>>({});
  const [other, setOther] = useState<string[]>([]);
  const [done, setDone] = useState<string | null>(null);

  /** What changing a field sets. */
  const set =
    <K extends keyof Text>(name: K) =>
    (value: Text[K]) =>
      setText((current) => ({ ...current, [name]: value }));

  return {
    text,
    setText,
    set,
    errors,
    setErrors,
    other,
    done,
    /** A field's value, its problem, and what typing sets: a Field's props. */
    field<K extends keyof Text & Field>(name: K) {
      return { value: text[name], error: errors[name], onChange: set(name) };
    },
    /** A new send: the last one's messages go, the form's own check's `problems` show; true
     * when there are none (it may be sent). */
    start(problems: FieldErrors<Field> = {}): boolean {
      setDone(null);
      setOther([]);
      setErrors(problems);
      return Object.keys(problems).length === 0;
    },
    failed(error: unknown, split?: (body: unknown) => Refusal<Field>) {
      if (split === undefined) {
        setOther([errorMessage(error)]);
        return;
      }
      const problems = refusal(error, split);
      setErrors(problems.fields as FieldErrors<Field>);
      setOther(problems.other);
    },
    /** Sent: `message` says what was done; `next` is the form's text from now on. */
    finish(message: string | null, next?: SetStateAction<Text>) {
      setDone(message);
      if (next !== undefined) setText(next);
    },
  };
}
