// The licence of every jar in the java driver's lib/, for the run's provenance: envs/java/install
// runs it (java DependencyLicences.java LIB_DIR MAVEN_REPOSITORY OUTPUT_JSON) before the build's
// Maven repository is removed, and workflow/scripts/jwtbench/dependency_licences.py reads what it
// writes. Each jar is found by its content in the repository, which gives its coordinates; its
// licences are the <licenses> of its POM or, where that has none, of the nearest parent POM that
// has them, as Maven's own inheritance reads them. Names and URLs are written as the POM has them.
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

public class DependencyLicences {
    record Coordinates(String group, String artifact, String version) {
        Path pom(Path repository) {
            return repository.resolve(group.replace('.', '/')).resolve(artifact).resolve(version)
                    .resolve(artifact + "-" + version + ".pom");
        }

        @Override
        public String toString() {
            return group + ":" + artifact + ":" + version;
        }
    }

    record Licences(Coordinates declaredIn, List<String[]> nameAndUrl) {}

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: java DependencyLicences.java LIB_DIR MAVEN_REPOSITORY OUTPUT_JSON");
            System.exit(2);
        }
        Path lib = Path.of(args[0]), repository = Path.of(args[1]), output = Path.of(args[2]);
        List<Path> repositoryJars, jars;
        try (Stream<Path> files = Files.walk(repository)) {
            repositoryJars = files.filter(path -> path.toString().endsWith(".jar")).toList();
        }
        try (Stream<Path> files = Files.list(lib)) {
            jars = files.filter(path -> path.toString().endsWith(".jar")).sorted().toList();
        }
        List<String> entries = new ArrayList<>();
        for (Path jar : jars) {
            Coordinates coordinates = null;
            for (Path candidate : repositoryJars) {
                if (candidate.getFileName().equals(jar.getFileName()) && Files.mismatch(candidate, jar) == -1) {
                    coordinates = coordinatesOf(repository.relativize(candidate));
                    break;
                }
            }
            StringBuilder entry = new StringBuilder("{\"file\": " + json(jar.getFileName().toString()));
            if (coordinates != null) {
                Licences licences = licencesOf(coordinates, repository);
                entry.append(", \"group\": ").append(json(coordinates.group()))
                        .append(", \"artifact\": ").append(json(coordinates.artifact()))
                        .append(", \"version\": ").append(json(coordinates.version()))
                        .append(", \"declared_in\": ")
                        .append(json(licences.declaredIn() == null ? null : licences.declaredIn().toString()))
                        .append(", \"licences\": [");
                List<String> items = new ArrayList<>();
                for (String[] licence : licences.nameAndUrl()) {
                    items.add("{\"name\": " + json(licence[0]) + ", \"url\": " + json(licence[1]) + "}");
                }
                entry.append(String.join(", ", items)).append("]");
            }
            entries.add(entry.append("}").toString());
        }
        Files.writeString(output, "{\"tool\": \"envs/java/DependencyLicences.java\", \"jars\": [\n  "
                + String.join(",\n  ", entries) + "\n]}\n");
    }

    // group/as/folders/artifact/version/artifact-version.jar, relative to the repository.
    static Coordinates coordinatesOf(Path relative) {
        int parts = relative.getNameCount();
        List<String> group = new ArrayList<>();
        for (int i = 0; i < parts - 3; i++) {
            group.add(relative.getName(i).toString());
        }
        return new Coordinates(String.join(".", group), relative.getName(parts - 3).toString(),
                relative.getName(parts - 2).toString());
    }

    static Licences licencesOf(Coordinates coordinates, Path repository) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        // A POM is data from a registry: no DTDs, no external entities.
        factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
        Coordinates current = coordinates;
        while (current != null && Files.isRegularFile(current.pom(repository))) {
            Element project = factory.newDocumentBuilder().parse(current.pom(repository).toFile()).getDocumentElement();
            List<String[]> found = new ArrayList<>();
            for (Element licence : children(child(project, "licenses"), "license")) {
                found.add(new String[] {text(licence, "name"), text(licence, "url")});
            }
            if (!found.isEmpty()) {
                return new Licences(current, found);
            }
            Element parent = child(project, "parent");
            current = parent == null ? null
                    : new Coordinates(text(parent, "groupId"), text(parent, "artifactId"), text(parent, "version"));
        }
        return new Licences(null, List.of());
    }

    static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        if (parent == null) {
            return found;
        }
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && name.equals(element.getLocalName())) {
                found.add(element);
            }
        }
        return found;
    }

    static Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? null : found.get(0);
    }

    static String text(Element parent, String name) {
        Element element = child(parent, name);
        return element == null ? null : element.getTextContent().trim().replaceAll("\\s+", " ");
    }

    static String json(String value) {
        if (value == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> out.append(c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
            }
        }
        return out.append('"').toString();
    }
}
