//! Ballista sessions and clusters with avrokit's codecs: [`remote_session`], [`Cluster`].

use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use arrow_flight::flight_service_server::FlightServiceServer;
use avrokit_datafusion::UrlStoreRegistry;
use ballista::extension::SessionContextExt;
use ballista_core::config::TaskSchedulingPolicy;
use ballista_core::extension::{
    ballista_aggregate_functions, ballista_scalar_functions, ballista_window_functions,
    SessionConfigExt,
};
use ballista_core::ids::new_instance_id;
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_core::serde::protobuf::scheduler_grpc_client::SchedulerGrpcClient;
use ballista_core::serde::protobuf::scheduler_grpc_server::SchedulerGrpcServer;
use ballista_core::serde::protobuf::ExecutorRegistration;
use ballista_core::serde::scheduler::{
    ExecutorOperatingSystemSpecification, ExecutorSpecification,
};
use ballista_core::serde::BallistaCodec;
use ballista_core::utils::{create_grpc_server, GrpcServerConfig};
use ballista_core::{ConfigProducer, JobId, RuntimeProducer, BALLISTA_PROTOCOL_VERSION};
use ballista_executor::execution_engine::QueryStageExecutor;
use ballista_executor::executor::Executor;
use ballista_executor::flight_service::BallistaFlightService;
use ballista_executor::health::ExecutorHealth;
use ballista_executor::metrics::ExecutorMetricsCollector;
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::metrics::default_metrics_collector;
use ballista_scheduler::scheduler_server::{SchedulerServer, SessionBuilder};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::object_store::ObjectStoreRegistry;
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use datafusion::execution::{SessionState, SessionStateBuilder};
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::protobuf::{LogicalPlanNode, PhysicalPlanNode};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tonic::transport::server::TcpIncoming;

use crate::codec::{AvroLogicalCodec, AvroPhysicalCodec};
use crate::table::AvroTableFactory;

/// `config` with avrokit's codecs as the ones Ballista sends plans with (its
/// `with_ballista_logical_extension_codec` and `with_ballista_physical_extension_codec`).
/// [`remote_session`] applies it; use it when making a Ballista session by other means.
pub fn with_avro_codecs(config: SessionConfig) -> SessionConfig {
    config
        .with_ballista_logical_extension_codec(Arc::new(AvroLogicalCodec::default()))
        .with_ballista_physical_extension_codec(Arc::new(AvroPhysicalCodec::default()))
}

/// The codecs of a scheduler or executor that serves avrokit's tables: the
/// `override_logical_codec` / `override_physical_codec` of a Ballista `SchedulerConfig`, or
/// the codec of an executor's poll loop.
pub fn avro_codec() -> BallistaCodec {
    BallistaCodec::new(
        Arc::new(AvroLogicalCodec::default()),
        Arc::new(AvroPhysicalCodec::default()),
    )
}

/// A client session of the Ballista scheduler at `url` (`df://host:port`), with avrokit's
/// codecs ([`with_avro_codecs`]) and object stores made from URLs as avrokit-datafusion
/// makes them ([`UrlStoreRegistry`]). Register tables in it with
/// [`register_avro`](crate::register_avro) or `CREATE EXTERNAL TABLE ... STORED AS AVRO`
/// (made by avrokit's format, as [`AvroTable`](crate::AvroTable)s); its queries run on the
/// cluster.
///
/// The scheduler and executors must use avrokit's codecs too ([`avro_codec`], or a
/// [`Cluster`]).
///
/// # Errors
/// A URL that does not parse, a runtime that cannot be built.
///
/// # Examples
/// ```no_run
/// # async fn f() -> datafusion::error::Result<()> {
/// use datafusion::prelude::SessionConfig;
/// let ctx = avrokit_ballista::remote_session("df://scheduler:50050", SessionConfig::new()).await?;
/// avrokit_ballista::register_avro(&ctx, "events", "s3://bucket/events/").await?;
/// ctx.sql("SELECT count(*) FROM events").await?.show().await?;
/// # Ok(()) }
/// ```
pub async fn remote_session(url: &str, config: SessionConfig) -> Result<SessionContext> {
    remote_session_with(url, config, Arc::new(UrlStoreRegistry::default())).await
}

async fn remote_session_with(
    url: &str,
    config: SessionConfig,
    stores: Arc<dyn ObjectStoreRegistry>,
) -> Result<SessionContext> {
    let state = SessionStateBuilder::new()
        .with_default_features()
        .with_config(with_avro_codecs(config))
        .with_runtime_env(runtime(&stores)?)
        .build();
    let ctx = SessionContext::remote_with_state(url, state).await?;
    avrokit_datafusion::register_format(&ctx)?;
    ctx.state_ref()
        .write()
        .table_factories_mut()
        .insert("AVRO".to_owned(), Arc::new(AvroTableFactory::default()));
    Ok(ctx)
}

fn runtime(stores: &Arc<dyn ObjectStoreRegistry>) -> Result<Arc<RuntimeEnv>> {
    RuntimeEnvBuilder::new()
        .with_object_store_registry(Arc::clone(stores))
        .build_arc()
}

/// The session a scheduler plans a job in, or an executor's functions come from: Ballista's
/// (its optimizer rules and functions), with `stores`.
fn cluster_state(
    config: SessionConfig,
    stores: &Arc<dyn ObjectStoreRegistry>,
) -> Result<SessionState> {
    Ok(SessionStateBuilder::new()
        .with_default_features()
        .with_config(config)
        .with_runtime_env(runtime(stores)?)
        .with_optimizer_rules(ballista_core::optimizer::ballista_default_optimizer_rules())
        .with_scalar_functions(ballista_scalar_functions())
        .with_aggregate_functions(ballista_aggregate_functions())
        .with_window_functions(ballista_window_functions())
        .build())
}

/// One task an executor of a [`Cluster`] ran.
#[derive(Debug, Clone)]
pub struct TaskRun {
    /// The executor's id.
    pub executor_id: String,
    /// The job (one query).
    pub job_id: String,
    /// The stage of the job.
    pub stage_id: usize,
    /// The task (one partition of the stage).
    pub task_id: usize,
    /// The stage's plan with the task's metrics, as Ballista prints it.
    pub plan: String,
}

/// Records every task an executor runs.
struct TaskRecorder {
    executor_id: String,
    runs: Arc<Mutex<Vec<TaskRun>>>,
}

impl ExecutorMetricsCollector for TaskRecorder {
    fn record_stage(
        &self,
        job_id: &JobId,
        stage_id: usize,
        task_id: usize,
        plan: Arc<dyn QueryStageExecutor>,
    ) {
        let run = TaskRun {
            executor_id: self.executor_id.clone(),
            job_id: job_id.to_string(),
            stage_id,
            task_id,
            plan: plan.to_string(),
        };
        self.runs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(run);
    }
}

/// A Ballista cluster inside this process: a scheduler and executors on 127.0.0.1, on ports
/// the system picks, all with avrokit's codecs and [`UrlStoreRegistry`] object stores. For
/// tests, examples and single-machine use; it stops when dropped (or when its tokio runtime
/// does).
///
/// The scheduler hands out tasks as executors poll for them (Ballista's pull scheduling, as
/// in its standalone mode); each executor runs as many tasks at once as it has vcores.
/// [`Cluster::tasks`] lists the tasks each executor ran.
///
/// # Examples
/// ```no_run
/// # async fn f() -> datafusion::error::Result<()> {
/// use datafusion::prelude::SessionConfig;
/// let cluster = avrokit_ballista::Cluster::start(2, 2).await?;
/// let ctx = cluster.session(SessionConfig::new()).await?;
/// avrokit_ballista::register_avro(&ctx, "t", "data/t/").await?;
/// ctx.sql("SELECT count(*) FROM t").await?.show().await?;
/// assert!(!cluster.tasks().is_empty());
/// # Ok(()) }
/// ```
pub struct Cluster {
    scheduler: SocketAddr,
    executor_ids: Vec<String>,
    runs: Arc<Mutex<Vec<TaskRun>>>,
    stores: Arc<dyn ObjectStoreRegistry>,
    work_dirs: Vec<PathBuf>,
    handles: Vec<JoinHandle<()>>,
}

impl Cluster {
    /// Starts a scheduler and `executors` executors of `vcores` task slots each.
    ///
    /// # Errors
    /// No executors or slots asked for, a port that cannot be bound, a work directory that
    /// cannot be made, a scheduler that does not start.
    pub async fn start(executors: usize, vcores: usize) -> Result<Cluster> {
        if executors == 0 || vcores == 0 {
            return Err(DataFusionError::Configuration(format!(
                "a cluster needs at least one executor of one vcore (asked for {executors} of \
                 {vcores})"
            )));
        }
        let stores: Arc<dyn ObjectStoreRegistry> = Arc::new(UrlStoreRegistry::default());
        let mut cluster = Cluster {
            scheduler: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            executor_ids: Vec::new(),
            runs: Arc::default(),
            stores,
            work_dirs: Vec::new(),
            handles: Vec::new(),
        };
        cluster.start_scheduler().await?;
        for _ in 0..executors {
            cluster.start_executor(vcores).await?;
        }
        Ok(cluster)
    }

    async fn start_scheduler(&mut self) -> Result<()> {
        let listener = bind().await?;
        let addr = listener
            .local_addr()
            .map_err(io_error("the scheduler's address"))?;
        let stores = Arc::clone(&self.stores);
        let builder: SessionBuilder = Arc::new(move |config| cluster_state(config, &stores));
        let config_producer: ConfigProducer = Arc::new(SessionConfig::new_with_ballista);
        let endpoint = addr.to_string();
        let cluster = BallistaCluster::new_memory(endpoint.clone(), builder, config_producer);
        let config = SchedulerConfig::default()
            .with_scheduler_policy(TaskSchedulingPolicy::PullStaged)
            .with_hostname(addr.ip().to_string())
            .with_port(addr.port());
        let metrics = default_metrics_collector().map_err(ballista_error)?;
        let mut server: SchedulerServer<LogicalPlanNode, PhysicalPlanNode> =
            SchedulerServer::new(endpoint, cluster, avro_codec(), Arc::new(config), metrics);
        server.init().await.map_err(ballista_error)?;
        let max = SessionConfig::new_with_ballista().ballista_grpc_client_max_message_size();
        let service = SchedulerGrpcServer::new(server)
            .max_decoding_message_size(max)
            .max_encoding_message_size(max);
        let serve = create_grpc_server(&GrpcServerConfig::default())
            .add_service(service)
            .serve_with_incoming(TcpIncoming::from(listener));
        self.handles.push(tokio::spawn(async move {
            if let Err(e) = serve.await {
                log::error!("avrokit-ballista: the scheduler stopped: {e}");
            }
        }));
        self.scheduler = addr;
        Ok(())
    }

    async fn start_executor(&mut self, vcores: usize) -> Result<()> {
        let listener = bind().await?;
        let addr = listener
            .local_addr()
            .map_err(io_error("an executor's address"))?;
        let id = new_instance_id();
        let work_dir = std::env::temp_dir().join(format!("avrokit-ballista-{id}"));
        std::fs::create_dir_all(&work_dir).map_err(io_error("an executor's work directory"))?;
        self.work_dirs.push(work_dir.clone());
        let work_dir = work_dir.to_string_lossy().into_owned();
        let metadata = ExecutorRegistration {
            id: id.clone(),
            host: Some(addr.ip().to_string()),
            port: u32::from(addr.port()),
            // Not used by pull scheduling (Ballista's standalone executor sends the same).
            grpc_port: 50020,
            specification: Some(
                ExecutorSpecification::default()
                    .with_vcores(u32::try_from(vcores).unwrap_or(u32::MAX))
                    .into(),
            ),
            os_info: Some(ExecutorOperatingSystemSpecification::default().into()),
            ballista_protocol_version: BALLISTA_PROTOCOL_VERSION,
        };
        let stores = Arc::clone(&self.stores);
        let runtime_producer: RuntimeProducer = Arc::new(move |_| runtime(&stores));
        let config_producer: ConfigProducer = Arc::new(SessionConfig::new_with_ballista);
        let functions = BallistaFunctionRegistry::from(&cluster_state(
            SessionConfig::new_with_ballista(),
            &self.stores,
        )?);
        let recorder = TaskRecorder {
            executor_id: id.clone(),
            runs: Arc::clone(&self.runs),
        };
        let executor = Arc::new(Executor::with_default_execution_engine(
            metadata,
            &work_dir,
            runtime_producer,
            config_producer,
            Arc::new(functions),
            Arc::new(recorder),
            vcores,
        ));
        let max = SessionConfig::new_with_ballista().ballista_grpc_client_max_message_size();
        let flight = FlightServiceServer::new(BallistaFlightService::new(work_dir))
            .max_decoding_message_size(max)
            .max_encoding_message_size(max);
        let serve = create_grpc_server(&GrpcServerConfig::default())
            .add_service(flight)
            .serve_with_incoming(TcpIncoming::from(listener));
        self.handles.push(tokio::spawn(async move {
            if let Err(e) = serve.await {
                log::error!("avrokit-ballista: an executor's flight service stopped: {e}");
            }
        }));
        let scheduler = SchedulerGrpcClient::connect(format!("http://{}", self.scheduler))
            .await
            .map_err(|e| {
                DataFusionError::External(
                    format!("connecting to the scheduler at {}: {e}", self.scheduler).into(),
                )
            })?;
        self.handles.push(tokio::spawn(async move {
            let poll = ballista_executor::execution_loop::poll_loop(
                scheduler,
                executor,
                avro_codec(),
                None,
                None,
                ExecutorHealth::new(),
            );
            if let Err(e) = poll.await {
                log::error!("avrokit-ballista: an executor stopped polling: {e}");
            }
        }));
        self.executor_ids.push(id);
        Ok(())
    }

    /// The scheduler's URL, as Ballista clients take it (`df://127.0.0.1:PORT`).
    pub fn scheduler_url(&self) -> String {
        format!("df://{}", self.scheduler)
    }

    /// A client session of this cluster ([`remote_session`]), sharing its object stores.
    ///
    /// # Errors
    /// As [`remote_session`].
    pub async fn session(&self, config: SessionConfig) -> Result<SessionContext> {
        remote_session_with(&self.scheduler_url(), config, Arc::clone(&self.stores)).await
    }

    /// The executors' ids, in the order they started.
    pub fn executor_ids(&self) -> &[String] {
        &self.executor_ids
    }

    /// The tasks the executors have run so far, in the order they finished.
    pub fn tasks(&self) -> Vec<TaskRun> {
        self.runs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl fmt::Debug for Cluster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cluster")
            .field("scheduler", &self.scheduler)
            .field("executor_ids", &self.executor_ids)
            .finish()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for h in &self.handles {
            h.abort();
        }
        for d in &self.work_dirs {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

async fn bind() -> Result<TcpListener> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .await
        .map_err(io_error("a port on 127.0.0.1"))
}

fn io_error(what: &'static str) -> impl Fn(std::io::Error) -> DataFusionError {
    move |e| DataFusionError::External(format!("{what}: {e}").into())
}

fn ballista_error(e: ballista_core::error::BallistaError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}
