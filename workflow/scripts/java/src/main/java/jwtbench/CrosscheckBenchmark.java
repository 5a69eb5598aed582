package jwtbench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The cross-check's JMH benchmark, one fork per cell ({@link Native}): its state rebuilds the cell
 * with the driver's own code; before each JMH iteration it takes the worker's orders: `batch n`,
 * `jmh k` or `end` (answered with the sink and the fork's CPUs).
 */
@State(Scope.Thread)
public class CrosscheckBenchmark {
  /** The `cell` of the drift reference's operation, in no spec. */
  static final int REFERENCE = -1;

  // The worker gives all three; JMH wants defaults.
  @Param("")
  public String spec;
  @Param("0")
  public int cell;
  @Param("0")
  public int port;

  private Jws jws;
  private Object[] claims;
  private String[] tokens;
  private int next;
  private byte[] message;
  private UnaryOperator<byte[]> sha256;
  private Cells.Timed driver;
  private BufferedReader in;
  private PrintWriter out;
  private int remaining;

  /** The cell rebuilt and checked, then the call back to the worker. */
  @Setup(Level.Trial)
  public void prepare() throws IOException {
    Spec loaded = Spec.load(spec);
    if (cell == REFERENCE) {
      message = Hashing.counting(Cells.Reference.MESSAGE_BYTES);
      sha256 = Cells.Reference.sha256();
      driver = new Cells.Timed(Cells.Reference.cell(loaded.suite()), message.length,
          new Hashing.Digest(message, sha256, 32));
    } else {
      Cells.Prepared prepared = Cells.prepare(List.of(loaded.cells().get(cell)), spec).get(0);
      if (!(Cells.check(prepared, new HashMap<>()) instanceof Checks.Passed passed)) {
        throw new IllegalStateException("the cell did not pass its checks in the fork");
      }
      Cells.Ready ready = new Cells.Ready(prepared.cell(), prepared.input(), passed);
      jws = passed.jws();
      claims = Workload.claims(ready);
      tokens = Workload.tokens(ready);
      driver = new Cells.Timed(prepared.cell(), prepared.input().inputBytes(), Workload.of(ready));
    }
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
    in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
    out = new PrintWriter(socket.getOutputStream(), true, StandardCharsets.UTF_8);
  }

  @Benchmark
  public String sign() {
    Object item = claims[next];
    if (++next == claims.length) {
      next = 0;
    }
    return jws.sign(item);
  }

  @Benchmark
  public Object verify() {
    String token = tokens[next];
    if (++next == tokens.length) {
      next = 0;
    }
    return jws.verify(token);
  }

  @Benchmark
  public byte[] reference() {
    return sha256.apply(message);
  }

  /** Before each JMH iteration: the worker's orders until it wants JMH iterations again. */
  @Setup(Level.Iteration)
  public void orders() throws IOException {
    while (remaining == 0) {
      String[] order = String.valueOf(in.readLine()).split(" ");
      switch (order[0]) {
        case "batch" -> {
          Map<String, Object> answer;
          try {
            answer = Cells.answer(driver, Long.parseLong(order[1]));
          } catch (Exception e) {
            answer = Map.of("error", Driver.reason(e));
          }
          out.println(Json.write(answer));
        }
        case "jmh" -> {
          remaining = Integer.parseInt(order[1]);
          out.println("ok");
        }
        default -> { // "end", or the worker is gone: JMH's run ends with this fork
          out.println(driver.sink + " " + CrosscheckCpus.allowedList(Path.of("/proc/self/status")));
          throw new IllegalStateException("jwtbench: the worker ended this fork");
        }
      }
    }
    remaining--;
  }
}
