/*
 * fluidops: the property table of plugins/module_utils/alluxio/property_table.py, read from the
 * Alluxio jars themselves (alluxio.conf.PropertyKey), and a probe of how Alluxio reads values.
 * GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
 *
 * Run through tools/alluxio/property_table.sh, which puts the jars of jars.lock on the class path:
 *   java -cp "$lib/*" PropertyTable.java            the Python module, on stdout
 *   java -cp "$lib/*" PropertyTable.java --probe    for each "name<TAB>value" line on stdin, how
 *       Alluxio reads it: "name<TAB>known<TAB>type<TAB>ok<TAB>value" or "...<TAB>error<TAB>exception"
 */

import alluxio.ProjectConstants;
import alluxio.conf.AlluxioProperties;
import alluxio.conf.InstancedConfiguration;
import alluxio.conf.PropertyKey;
import alluxio.conf.PropertyKey.PropertyType;
import alluxio.conf.PropertyKey.Template;
import alluxio.conf.Source;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

public final class PropertyTable {
  /** A BOOLEAN key: a nested template must give its type to a name that nests it. */
  private static final String NESTED_PROBE = "alluxio.conf.validation.enabled";

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    if (args.length == 1 && args[0].equals("--probe")) {
      probe(out);
    } else if (args.length == 0) {
      out.print(table());
    } else {
      System.err.println("usage: PropertyTable.java [--probe]");
      System.exit(2);
    }
    out.flush();
  }

  /** PropertyType's name, or "ENUM:" and the enum class's name. */
  private static String typeName(PropertyType type, Optional<Class<? extends Enum>> enumType,
      Map<String, List<String>> enums) {
    if (type != PropertyType.ENUM) {
      return type.name();
    }
    Class<? extends Enum> cls = enumType.orElseThrow();
    List<String> names = new ArrayList<>();
    for (Enum<?> constant : cls.getEnumConstants()) {
      names.add(constant.name());  // Enum.valueOf, which PropertyKey.parseValue calls, takes name()
    }
    enums.put(cls.getName(), names);
    return "ENUM:" + cls.getName();
  }

  @SuppressWarnings("unchecked")
  private static <T> T field(Template template, String name) throws ReflectiveOperationException {
    Field field = Template.class.getDeclaredField(name);
    field.setAccessible(true);
    return (T) field.get(template);
  }

  private static String table() throws ReflectiveOperationException {
    Map<String, String> keys = new TreeMap<>();
    Map<String, String> aliases = new TreeMap<>();
    Map<String, String> deprecated = new TreeMap<>();
    Map<String, List<String>> enums = new TreeMap<>();
    for (PropertyKey key : PropertyKey.defaultKeys()) {
      String type = typeName(key.getType(),
          key.getType() == PropertyType.ENUM ? Optional.of(key.getEnumType()) : Optional.empty(), enums);
      keys.put(key.getName(), type);
      if (key.getAliases() != null) {
        for (String alias : key.getAliases()) {
          aliases.put(alias, key.getName());
        }
      }
      if (PropertyKey.isDeprecated(key)) {
        deprecated.put(key.getName(), PropertyKey.getDeprecationMessage(key));
      }
    }

    List<String[]> templates = new ArrayList<>();
    for (Template template : Template.values()) {
      Pattern pattern = field(template, "mPattern");
      String format = field(template, "mFormat");
      PropertyType type = field(template, "mType");
      Optional<Class<? extends Enum>> enumType = field(template, "mEnumType");
      boolean nested = pattern.pattern().contains("(?<nested>");
      String typeName = nested ? "NESTED" : typeName(type, enumType, enums);
      // A level above the default keys' 0, 1 and 2.
      String example = format.replace("%s", "x").replace("%d", "7");
      if (example.contains("%")) {
        throw new IllegalStateException(template + ": a format other than %s and %d: " + format);
      }
      // The example is kept when Java matches it to this template first, as fromString does.
      if (PropertyKey.isValid(example) && !keys.containsKey(example) && !aliases.containsKey(example)
          && firstMatch(example) == template) {
        PropertyKey resolved = PropertyKey.fromString(example);
        String resolvedType = typeName(resolved.getType(), resolved.getType() == PropertyType.ENUM
            ? Optional.of(resolved.getEnumType()) : Optional.empty(), enums);
        if (!resolvedType.equals(nested ? "STRING" : typeName)) {
          throw new IllegalStateException(template + ": " + example + " is " + resolvedType);
        }
      } else {
        System.err.println("note: " + template.name() + " has no example: " + example
            + (template.matches(example) ? " is a key or matches an earlier template" : " does not match " + pattern));
        example = null;
      }
      if (nested) {
        int last = format.lastIndexOf("%s");
        String name = (format.substring(0, last) + NESTED_PROBE + format.substring(last + 2))
            .replace("%s", "x").replace("%d", "7");
        if (PropertyKey.fromString(name).getType() != PropertyType.BOOLEAN) {
          throw new IllegalStateException(template + ": " + name + " does not take the nested key's type");
        }
      }
      templates.add(new String[] {template.name(), pythonPattern(pattern.pattern()), typeName, example});
    }

    StringBuilder py = new StringBuilder();
    String version = ProjectConstants.VERSION;
    py.append("# -*- coding: utf-8 -*-\n")
        .append("# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)\n")
        .append("# GENERATED from Alluxio ").append(version)
        .append("'s alluxio.conf.PropertyKey (alluxio-core-common-").append(version)
        .append(".jar of tools/alluxio/jars.lock)\n")
        .append("# by tools/alluxio/property_table.sh (tools/alluxio/PropertyTable.java). Do not edit: run\n")
        .append("# tools/alluxio/property_table.sh; tests/render/test_alluxio_property_table.py fails when it is stale.\n")
        .append("\"\"\"Alluxio ").append(version)
        .append("'s property names and types, for properties.py beside it (generated).\"\"\"\n\n")
        .append("from __future__ import absolute_import, division, print_function\n\n")
        .append("__metaclass__ = type\n\n")
        .append("VERSION = ").append(str(version)).append("\n\n")
        .append("# Every default key (PropertyKey.defaultKeys()): name -> its PropertyKey.PropertyType, or for an\n")
        .append("# ENUM \"ENUM:\" and the enum class, whose constants ENUMS holds.\n")
        .append("KEYS = {\n");
    keys.forEach((name, type) -> py.append("    ").append(str(name)).append(": ").append(str(type)).append(",\n"));
    py.append("}\n\n# Alias -> the key it stands for (PropertyKey.Builder.setAlias).\nALIASES = {\n");
    aliases.forEach((alias, name) -> py.append("    ").append(str(alias)).append(": ").append(str(name)).append(",\n"));
    py.append("}\n\n# Keys marked @Deprecated -> Alluxio's message (PropertyKey.getDeprecationMessage).\n")
        .append("DEPRECATED = {\n");
    deprecated.forEach((name, message) -> {
      String line = "    " + str(name) + ": " + str(message) + ",";
      // A message too long for a line: adjacent literals in parentheses, split at spaces.
      py.append(line.length() <= LINE ? line + "\n" : fill("    " + str(name) + ": (", words(message), " ", "),"));
    });
    py.append("}\n\n# Enum class -> its constants' names, in declaration order.\nENUMS = {\n");
    enums.forEach((cls, names) -> py.append(
        fill("    " + str(cls) + ": (", names.stream().map(PropertyTable::str).toList(), ", ", names.size() == 1 ? ",)," : "),")));
    py.append("}\n\n")
        .append("# PropertyKey.Template, in the order PropertyKey.fromString tries them after KEYS and ALIASES:\n")
        .append("# (constant, name pattern in Python's re syntax, to match whole with re.ASCII, type, a name\n")
        .append("# Java matches to this template first or None). Type NESTED: the pattern's group \"nested\" names\n")
        .append("# a key whose type the name takes, STRING when it names none.\n")
        .append("TEMPLATES = (\n");
    for (String[] t : templates) {
      py.append(fill("    (", List.of(str(t[0]), "r\"" + t[1] + "\"", str(t[2]), t[3] == null ? "None" : str(t[3])), ", ", "),"));
    }
    py.append(")\n");
    System.err.printf("%d keys, %d aliases, %d deprecated, %d enums, %d templates%n",
        keys.size(), aliases.size(), deprecated.size(), enums.size(), templates.size());
    return py.toString();
  }

  private static Template firstMatch(String name) {
    for (Template template : Template.values()) {
      if (template.matches(name)) {
        return template;
      }
    }
    return null;
  }

  /** A Python string literal: double quotes, backslash escapes, ASCII only. */
  /** The longest line written (ansible-test's pycodestyle: 160). */
  private static final int LINE = 160;

  /**
   * PREFIX (ending with an opening bracket), the ITEMS joined by SEPARATOR, then SUFFIX, and a
   * newline: on one line when it fits in LINE, else on as many as it takes, each continuation
   * aligned after the bracket (the test's pycodestyle, ansible-test sanity, wants that).
   */
  private static String fill(String prefix, List<String> items, String separator, String suffix) {
    String pad = " ".repeat(prefix.length());
    String glue = separator.stripTrailing();
    StringBuilder out = new StringBuilder();
    String line = prefix;
    for (int i = 0; i < items.size(); i++) {
      String item = items.get(i) + (i == items.size() - 1 ? suffix : glue);
      // Adjacent string literals (no separator) go one a line: Python joins them either way.
      if (i > 0 && (glue.isEmpty() || (line + " " + item).length() > LINE)) {
        out.append(line).append('\n');
        line = pad + item;
      } else {
        line = i == 0 ? line + item : line + " " + item;
      }
    }
    return out.append(line).append('\n').toString();
  }

  /** TEXT as Python literals of at most 60 characters of it each, split after spaces. */
  private static List<String> words(String text) {
    List<String> parts = new ArrayList<>();
    StringBuilder part = new StringBuilder();
    for (String word : text.split("(?<= )")) {
      if (part.length() > 0 && part.length() + word.length() > 60) {
        parts.add(str(part.toString()));
        part.setLength(0);
      }
      part.append(word);
    }
    parts.add(str(part.toString()));
    return parts;
  }

  private static String str(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7e) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }

  /** Letters that mean the same after a backslash in java.util.regex and in Python's re with re.ASCII. */
  private static final String SAME_ESCAPES = "wWdDsS.\\-$^{}()[]*+?|@";

  /**
   * A java.util.regex pattern in Python's re syntax, for the constructs the templates use: named
   * groups (?<name>...) become (?P<name>...) and possessive quantifiers (X*+) greedy ones (X*).
   * Dropping possession keeps the language of these patterns: what follows a possessive group
   * cannot match what the group gave back (checked by the examples and the probe test). Any other
   * construct that the two engines may read differently stops the generator.
   */
  private static String pythonPattern(String re) {
    StringBuilder out = new StringBuilder();
    boolean inClass = false;
    for (int i = 0; i < re.length(); i++) {
      char c = re.charAt(i);
      if (c == '\\') {
        char next = re.charAt(++i);
        if (SAME_ESCAPES.indexOf(next) < 0) {
          throw new IllegalStateException("escape \\" + next + " in " + re);
        }
        out.append(c).append(next);
      } else if (inClass) {
        if (c == '[' || (c == '&' && re.charAt(i + 1) == '&')) {
          throw new IllegalStateException("nested class or intersection in " + re);
        }
        inClass = c != ']';
        out.append(c);
      } else if (c == '[') {
        inClass = true;
        out.append(c);
        if (re.charAt(i + 1) == ']' || re.charAt(i + 1) == '^') {
          throw new IllegalStateException("class starting with ] or ^ in " + re);
        }
      } else if (c == '(' && re.startsWith("(?", i)) {
        if (re.startsWith("(?<", i) && Character.isLetter(re.charAt(i + 3))) {
          out.append("(?P<");
          i += 2;
        } else if (re.startsWith("(?:", i)) {
          out.append("(?:");
          i += 2;
        } else {
          throw new IllegalStateException("group " + re.substring(i, i + 3) + " in " + re);
        }
      } else if ("*+?}".indexOf(c) >= 0 && i + 1 < re.length() && re.charAt(i + 1) == '+') {
        out.append(c);  // possessive: the quantifier without its +
        i++;
      } else if (c == '"') {
        throw new IllegalStateException("a quote in " + re);
      } else {
        out.append(c);
      }
    }
    if (inClass) {
      throw new IllegalStateException("unclosed class in " + re);
    }
    return out.toString();
  }

  /**
   * How Alluxio reads each "name<TAB>value" line of stdin: the property is merged as a system
   * property (-Dname=value, as the chart's ALLUXIO_JAVA_OPTS pass it; AlluxioProperties.merge trims
   * both and PropertyKey.parseValue parses the value), then read back with the getter of its type,
   * which resolves ${...} references and parses sizes and durations (FormatUtils).
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void probe(PrintStream out) throws Exception {
    List<String[]> lines = new ArrayList<>();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      String[] parts = line.split("\t", 2);
      if (parts.length != 2) {
        throw new IllegalArgumentException("not name<TAB>value: " + line);
      }
      // isValid before any merge: a merged unknown name is registered as a custom key.
      lines.add(new String[] {parts[0], parts[1], Boolean.toString(PropertyKey.isValid(parts[0].trim()))});
    }
    for (String[] line : lines) {
      String name = line[0].trim();
      boolean known = Boolean.parseBoolean(line[2]);
      // merge makes an unknown name a custom STRING key with getOrBuildCustom, as here.
      PropertyKey key = known ? PropertyKey.fromString(name) : PropertyKey.getOrBuildCustom(name);
      String result;
      try {
        AlluxioProperties properties = new AlluxioProperties();
        properties.merge(Collections.singletonMap(line[0], line[1]), Source.SYSTEM_PROPERTY);
        InstancedConfiguration conf = new InstancedConfiguration(properties);
        Object value;
        switch (key.getType()) {
          case BOOLEAN: value = conf.getBoolean(key); break;
          case INTEGER: value = conf.getInt(key); break;
          case LONG: value = conf.getLong(key); break;
          case DOUBLE: value = conf.getDouble(key); break;
          case ENUM: value = conf.getEnum(key, (Class) key.getEnumType()).name(); break;
          case DURATION: value = conf.getMs(key); break;
          case DATASIZE: value = conf.getBytes(key); break;
          case LIST: value = conf.getList(key); break;
          default: value = conf.get(key); break;
        }
        result = "ok\t" + value;
      } catch (RuntimeException e) {
        result = "error\t" + e.getClass().getSimpleName();
      }
      if (!known) {
        PropertyKey.unregister(key);  // the next line sees the name as unknown again
      }
      String type = key.getType().name();
      if (key.getType() == PropertyType.ENUM) {
        try {
          type = "ENUM:" + key.getEnumType().getName();
        } catch (IllegalStateException e) {
          // an ENUM without its enum class: what a nested template makes of an enum key
        }
      }
      out.println(String.join("\t", line[0], line[2], type, result));
    }
  }
}
