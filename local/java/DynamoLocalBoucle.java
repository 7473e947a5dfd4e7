/*
 * DynamoDB Local bound to 127.0.0.1 (local/dynamodb.ts runs this file with Java's single-file source
 * launcher: `java -cp DynamoDBLocal.jar:DynamoDBLocal_lib/* DynamoLocalBoucle.java <DynamoDB Local's own
 * options>`; nothing to build, nothing compiled kept).
 *
 * The jar's own main (software.amazon.dynamodb.services.local.main.ServerRunner) has no host option:
 * its DynamoDBProxyServer makes a Jetty `new Server(port)`, whose one connector listens on every
 * interface — and DynamoDB Local takes any credentials. So this builds the very same server through
 * the jar's public ServerRunner.createServerFromCommandLineArgs (same options, same parsing, same
 * handlers, same telemetry setting), sets the host of that still unbound connector to 127.0.0.1, then
 * starts it as ServerRunner.main does. Jetty's Server is a private field of DynamoDBProxyServer: it is
 * found by its type, and anything unexpected (no such field, no connector, a connector of another kind,
 * a server that did not start) ends Java with exit code 1 rather than listening anywhere else.
 */
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class DynamoLocalBoucle {
  static final String HOTE = "127.0.0.1";

  static void echec(String message) {
    System.err.println("DynamoLocalBoucle: " + message);
    System.exit(1);
  }

  static Server jettyDe(DynamoDBProxyServer proxy) throws IllegalAccessException {
    Server trouve = null;
    for (Field champ : DynamoDBProxyServer.class.getDeclaredFields()) {
      if (champ.getType() != Server.class) continue;
      if (trouve != null) echec("more than one Jetty Server in DynamoDBProxyServer");
      champ.setAccessible(true);
      trouve = (Server) champ.get(proxy);
    }
    if (trouve == null) echec("no Jetty Server in DynamoDBProxyServer (a new DynamoDB Local version?)");
    return trouve;
  }

  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy;
    try {
      proxy = ServerRunner.createServerFromCommandLineArgs(args);
    } catch (Exception e) {
      echec("DynamoDB Local refused its options: " + e);
      return;
    }
    Server jetty = jettyDe(proxy);
    Connector[] connecteurs = jetty.getConnectors();
    if (connecteurs.length == 0) echec("DynamoDB Local's Jetty server has no connector");
    for (Connector connecteur : connecteurs) {
      if (!(connecteur instanceof ServerConnector reseau)) {
        echec("unexpected Jetty connector " + connecteur.getClass().getName());
        return;
      }
      reseau.setHost(HOTE);
    }
    // DynamoDB Local's own start: on a busy port it prints "Could not start server on port …" and
    // stops Jetty instead of throwing; exit then, so the caller sees Java end at once.
    proxy.start();
    if (!jetty.isStarted()) echec("DynamoDB Local did not start");
    for (Connector connecteur : jetty.getConnectors()) {
      String hote = ((ServerConnector) connecteur).getHost();
      if (!HOTE.equals(hote)) echec("a connector listens on " + hote + ", not " + HOTE);
    }
  }
}
