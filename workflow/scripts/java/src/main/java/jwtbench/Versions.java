package jwtbench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.JarURLConnection;
import java.net.URL;
import java.security.GeneralSecurityException;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.Provider;
import java.security.Signature;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import javax.crypto.Cipher;
import javax.crypto.Mac;

/** `versions`: the JVM, the jars on the class path (their pom.properties) and the JCA providers, read at run time. */
final class Versions {
  private static final String DRIVER_GROUP = "jwtbench";
  private static final Map<String, String> JAR_VERSIONS = new HashMap<>();

  private Versions() {}

  /** What the rows' implementation and implementation_version columns say. */
  record Implementation(String name, String version) {}

  /** A library's version, from the pom.properties inside the jar `anchor` was loaded from (read once). */
  static synchronized String jarVersion(Class<?> anchor, String groupId, String artifactId) {
    return JAR_VERSIONS.computeIfAbsent(groupId + ":" + artifactId, id -> {
      String resource = "/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
      try (InputStream in = anchor.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException(artifactId + "'s jar has no " + resource);
        }
        Properties properties = new Properties();
        properties.load(in);
        return properties.getProperty("version");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  /** The implementation a cell's rows name: its hash implementation (suite hash), else the JWS library. */
  static Implementation implementationOf(Spec.Cell cell) {
    if (cell.crypto() != null) {
      return new Implementation(Jca.NAME, Jca.version()); // the only implementation of primitive and keygen
    }
    return cell.hash() != null ? Hashing.implementation(cell.hash().implementation())
        : new Implementation(JwsLibrary.current().name(), JwsLibrary.current().version());
  }

  /** artifactId -> version of every Maven-built jar on the class path but the driver's and other JWS libraries' own. */
  static Map<String, String> libraries() {
    JwsLibrary current = JwsLibrary.current();
    Set<String> others = new HashSet<>();
    JwsLibrary.ARTIFACTS.forEach((name, artifacts) -> {
      if (!name.equals(current.name())) {
        others.addAll(artifacts);
      }
    });
    others.removeAll(JwsLibrary.ARTIFACTS.get(current.name()));
    Map<String, String> found = new TreeMap<>(current.unlistedLibraries());
    try {
      Enumeration<URL> manifests = ClassLoader.getSystemClassLoader().getResources("META-INF/MANIFEST.MF");
      while (manifests.hasMoreElements()) {
        URL url = manifests.nextElement();
        if (!url.getProtocol().equals("jar")) {
          continue;
        }
        JarURLConnection connection = (JarURLConnection) url.openConnection();
        connection.setUseCaches(false);
        try (JarFile jar = connection.getJarFile()) {
          for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
            JarEntry entry = entries.nextElement();
            if (!entry.getName().startsWith("META-INF/maven/") || !entry.getName().endsWith("/pom.properties")) {
              continue;
            }
            Properties properties = new Properties();
            try (InputStream in = jar.getInputStream(entry)) {
              properties.load(in);
            }
            if (!DRIVER_GROUP.equals(properties.getProperty("groupId"))
                && !others.contains(properties.getProperty("artifactId"))) {
              found.put(properties.getProperty("artifactId"), properties.getProperty("version"));
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the class path's jars", e);
    }
    Map<String, String> libraries = new LinkedHashMap<>();
    libraries.put(current.name(), JwsLibrary.current().version());
    found.forEach(libraries::putIfAbsent);
    return libraries;
  }

  /** The contract algorithms' JCA services (Jws.jcaName) by the provider the JDK picks for each: a crypto_backend. */
  static String jcaProviders(List<String> algorithms) {
    return "JCA providers of " + System.getProperty("java.vm.vendor") + " Java " + Runtime.version() + ": "
        + providers(algorithms.stream().map(a -> (Jws.isHmac(a) ? "Mac " : "Signature ") + Jws.jcaName(a)).toList());
  }

  /** Services ("Signature SHA256withRSA") grouped by the provider the JDK hands out: "SunRsaSign 17 (Signature ...); ...". */
  static String providers(List<String> services) {
    Map<String, Set<String>> byProvider = new LinkedHashMap<>();
    for (String service : services) {
      String[] s = service.split(" ", 2);
      String name;
      try {
        Provider p = switch (s[0]) {
          case "MessageDigest" -> MessageDigest.getInstance(s[1]).getProvider();
          case "Mac" -> Mac.getInstance(s[1]).getProvider();
          case "Cipher" -> Cipher.getInstance(s[1]).getProvider();
          case "KeyPairGenerator" -> KeyPairGenerator.getInstance(s[1]).getProvider();
          default -> Signature.getInstance(s[1]).getProvider();
        };
        name = p.getName() + " " + p.getVersionStr();
      } catch (GeneralSecurityException e) {
        name = "none";
      }
      byProvider.computeIfAbsent(name, k -> new LinkedHashSet<>()).add(service);
    }
    return byProvider.entrySet().stream()
        .map(e -> e.getKey() + " (" + String.join(", ", e.getValue()) + ")")
        .collect(Collectors.joining("; "));
  }

  static String json() {
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("language", Driver.LANGUAGE);
    info.put("runtime", "java");
    info.put("runtime_version", Runtime.version().toString());
    info.put("implementation", JwsLibrary.current().name());
    info.put("implementation_version", JwsLibrary.current().version());
    info.put("crypto_backend", JwsLibrary.current().cryptoBackend());
    info.put("libraries", libraries());
    info.put("hash_implementations", Hashing.versions());
    info.put("crypto_implementations", Map.of(Jca.NAME, Jca.versions()));
    String gc = ManagementFactory.getGarbageCollectorMXBeans().stream()
        .map(GarbageCollectorMXBean::getName).collect(Collectors.joining(", "));
    info.put("vm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version")
        + " (" + System.getProperty("java.vm.vendor") + "); " + Runtime.getRuntime().availableProcessors()
        + " CPU(s) visible; GC: " + gc);
    return Json.write(info);
  }
}
