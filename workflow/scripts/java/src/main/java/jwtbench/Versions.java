package jwtbench;

import io.fusionauth.jwt.domain.Algorithm;
import io.fusionauth.jwt.domain.JWT;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.JarURLConnection;
import java.net.URL;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.security.Signature;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import javax.crypto.Mac;

/**
 * `versions`: what this process runs on, read at run time: the JVM, the libraries on the class
 * path (from the META-INF/maven/.../pom.properties each Maven-built jar carries) and the JCA
 * providers that serve fusionauth-jwt's signature and MAC algorithms.
 */
final class Versions {
  static final String IMPLEMENTATION = "fusionauth-jwt";
  private static final String DRIVER_GROUP = "jwtbench";
  private static final Map<String, String> JAR_VERSIONS = new HashMap<>();

  private Versions() {}

  /** What the rows' implementation and implementation_version columns say. */
  record Implementation(String name, String version) {}

  /**
   * A library's version, from the pom.properties inside the jar `anchor` was loaded from
   * (read once).
   */
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

  /** fusionauth-jwt's version, from its jar. */
  static String implementationVersion() {
    return jarVersion(JWT.class, "io.fusionauth", IMPLEMENTATION);
  }

  /** The implementation a cell's rows name: its hash implementation (suite hash), else fusionauth-jwt. */
  static Implementation implementationOf(Spec.Cell cell) {
    if (cell.crypto() != null) {
      return new Implementation(Jca.NAME, Jca.version()); // the only implementation of primitive and keygen
    }
    return cell.hash() != null ? Hashing.implementation(cell.hash().implementation())
        : new Implementation(IMPLEMENTATION, implementationVersion());
  }

  /** artifactId -> version of every Maven-built jar on the class path but the driver's own. */
  static Map<String, String> libraries() {
    Map<String, String> found = new TreeMap<>();
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
            if (!DRIVER_GROUP.equals(properties.getProperty("groupId"))) {
              found.put(properties.getProperty("artifactId"), properties.getProperty("version"));
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the class path's jars", e);
    }
    Map<String, String> libraries = new LinkedHashMap<>();
    libraries.put(IMPLEMENTATION, implementationVersion());
    found.forEach(libraries::putIfAbsent);
    return libraries;
  }

  /**
   * The JCA provider of every algorithm fusionauth-jwt uses for the contract's algorithms, as
   * the JDK picks it (the first provider in java.security's order that has it): "SunJCE 17
   * (HmacSHA256, ...); SunRsaSign 17 (...); SunEC 17 (...)".
   */
  static String cryptoBackend() {
    Map<String, Set<String>> byProvider = new LinkedHashMap<>();
    for (String alg : Jws.CONTRACT_ALGORITHMS) {
      Algorithm algorithm;
      try {
        algorithm = Jws.algorithm(alg);
      } catch (UnsupportedAlgorithm e) {
        continue;
      }
      String service = alg.startsWith("PS") ? "RSASSA-PSS" : algorithm.getName(); // as RSAPSSSigner asks
      Provider provider;
      try {
        provider = Jws.isHmac(alg) ? Mac.getInstance(service).getProvider() : Signature.getInstance(service).getProvider();
      } catch (GeneralSecurityException e) {
        continue;
      }
      byProvider.computeIfAbsent(provider.getName() + " " + provider.getVersionStr(), k -> new LinkedHashSet<>())
          .add(service);
    }
    return "JCA providers of " + System.getProperty("java.vm.vendor") + " Java " + Runtime.version() + ": "
        + byProvider.entrySet().stream()
            .map(e -> e.getKey() + " (" + String.join(", ", e.getValue()) + ")")
            .collect(Collectors.joining("; "));
  }

  static String json() {
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("language", Driver.LANGUAGE);
    info.put("runtime", "java");
    info.put("runtime_version", Runtime.version().toString());
    info.put("implementation", IMPLEMENTATION);
    info.put("implementation_version", implementationVersion());
    info.put("crypto_backend", cryptoBackend());
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
