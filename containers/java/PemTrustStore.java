// A Java trust store from a PEM CA bundle, for Maven behind a TLS-intercepting proxy.
// Usage: java PemTrustStore.java BUNDLE.pem OUT.jks   (single-file source launch, JDK 11+)
// Every certificate of the bundle becomes a trusted entry of a JKS store (readable without a
// password, like Debian's /etc/ssl/certs/java/cacerts). keytool cannot do this: it imports
// one certificate per call.
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;

public class PemTrustStore {
  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: java PemTrustStore.java BUNDLE.pem OUT.jks");
      System.exit(2);
    }
    KeyStore store = KeyStore.getInstance("JKS");
    store.load(null, null);
    int count = 0;
    try (InputStream in = new FileInputStream(args[0])) {
      for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        store.setCertificateEntry("ca-" + count++, certificate);
      }
    }
    if (count == 0) {
      System.err.println("no certificate in " + args[0]);
      System.exit(1);
    }
    try (OutputStream out = new FileOutputStream(args[1])) {
      store.store(out, "changeit".toCharArray());
    }
    System.err.println(count + " CA certificates in " + args[1]);
  }
}
