package minitb;

import java.util.Map;

/** Just enough JSON for the result document: objects, strings, numbers, booleans. */
final class Json {
  private Json() {
  }

  static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(out, value);
    return out.toString();
  }

  private static void write(StringBuilder out, Object value) {
    if (value instanceof Map<?, ?> map) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        out.append(first ? "" : ",");
        first = false;
        string(out, entry.getKey().toString());
        out.append(':');
        write(out, entry.getValue());
      }
      out.append('}');
    } else if (value instanceof String text) {
      string(out, text);
    } else if (value instanceof Double number) {
      if (number.isNaN() || number.isInfinite()) {
        throw new IllegalArgumentException("not a JSON number: " + number);
      }
      out.append(number);
    } else if (value instanceof Number || value instanceof Boolean) {
      out.append(value);
    } else {
      throw new IllegalArgumentException("cannot write " + value + " as JSON");
    }
  }

  private static void string(StringBuilder out, String text) {
    out.append('"');
    for (char c : text.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
