/** A search over series labels ("client=go p=1000": every word must be in the labels). */
export function LabelSearch({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {label}{" "}
      <input
        type="search"
        value={value}
        placeholder="labels, e.g. client=go"
        onChange={(event) => onChange(event.target.value)}
      />
    </label>
  );
}
