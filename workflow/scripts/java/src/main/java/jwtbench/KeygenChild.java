package jwtbench;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;

/**
 * The child JVM of suite keygen's per-iteration cells ({@link KeygenSuite}): it does the work
 * the driver must be able to stop at max_cell_seconds, even in the middle of one key
 * generation, by killing this process. JDK classes only.
 *
 * <pre>
 *   java -cp CLASSPATH jwtbench.KeygenChild FAMILY BITS ALGORITHM OPERATION MESSAGE_BYTES
 *        ITERATIONS TARGET_NS MAX_ITERATIONS
 * </pre>
 *
 * OPERATION is keygen+sign+verify or keygen. Every iteration is timed, the first too; the key
 * pair the first one generated is checked right after it (untimed). One line per event on
 * stdout, each flushed: {@code ready} (just before the first iteration: the cell's budget
 * starts); {@code checked} (the first key pair passed, before the first iteration's line);
 * {@code iteration NS OUTPUT_BYTES} per iteration; {@code done SINK}; or {@code failed REASON}
 * (and nothing more).
 */
public final class KeygenChild {
  private static final PrintStream OUT =
      new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);

  private KeygenChild() {}

  private static void say(String line) {
    OUT.print(line + "\n");
    OUT.flush();
  }

  public static void main(String[] args) {
    try {
      String reason = run(args);
      if (reason != null) {
        say("failed " + reason.replace('\n', ' '));
      }
    } catch (Exception | Error e) {
      say("failed " + String.valueOf(e).replace('\n', ' '));
    }
    System.exit(0);
  }

  /** Null when done, else why the cell failed. */
  private static String run(String[] args) throws Exception {
    if (args.length != 8) {
      return "KeygenChild needs 8 arguments, got " + args.length;
    }
    String family = args[0];
    int bits = Integer.parseInt(args[1]);
    String algorithm = args[2];
    String operation = args[3];
    int messageBytes = Integer.parseInt(args[4]);
    int iterations = Integer.parseInt(args[5]);
    long targetNs = Long.parseLong(args[6]);
    int maxIterations = Integer.parseInt(args[7]);

    KeyPairGenerator generator = Jca.generator(family, bits);
    Signature signer = Signature.getInstance(Jca.signatureName(algorithm));
    Signature verifier = Signature.getInstance(Jca.signatureName(algorithm));
    boolean keygenOnly = operation.equals(Spec.Crypto.KEYGEN);
    byte[] message = Jca.digits(messageBytes);
    long sink = 0;
    say("ready");
    long start = System.nanoTime();
    for (int k = 1; k <= maxIterations; k++) {
      if (k > iterations && System.nanoTime() - start >= targetNs) {
        break;
      }
      long t0 = System.nanoTime();
      KeyPair pair = generator.generateKeyPair();
      byte[] signature = null;
      boolean valid = true;
      if (!keygenOnly) {
        signer.initSign(pair.getPrivate());
        signer.update(message);
        signature = signer.sign();
        verifier.initVerify(pair.getPublic());
        verifier.update(message);
        valid = verifier.verify(signature);
      }
      long t1 = System.nanoTime();
      if (!valid) {
        return "a signature made with a generated key did not verify (iteration " + k + ")";
      }
      if (k == 1) {
        // The first iteration's own key pair: its size and curve, then sign, verify and reject
        // a flipped signature. No key pair is generated for the check alone.
        String problem = Jca.sizeProblem(family, bits, pair.getPublic());
        if (problem == null) {
          problem = Jca.signatureProblem(algorithm, pair.getPrivate(), pair.getPublic(), Jca.CHECK_MESSAGE);
        }
        if (problem != null) {
          return "generated key: " + problem;
        }
        say("checked");
      }
      // Consumed after the clock: the signature's length, or the public key's DER length.
      int output = keygenOnly ? pair.getPublic().getEncoded().length : signature.length;
      sink += output;
      say("iteration " + (t1 - t0) + " " + output);
    }
    say("done " + sink);
    return null;
  }
}
