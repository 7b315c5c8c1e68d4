"""Held-out probe of invariant-map settings for MNIST (experiments/journal/invariant.md).

Trains RLS on 1000 seeded examples per class drawn from the first 50k rows
of the MNIST training file and scores 4000 rows of its last 10k: the test
file is never read. Templates are training images (first 50k rows, labels
unread), transformed by sampled rotations x sub-pixel shifts, centred and
scaled to unit length; CDF pooling at 2n+1 thresholds on [-s, s]. A quick
numpy mirror of invariant.Map used to rank settings before the Go runs.

usage: python3 experiments/probes/invariant_probe.py --data data/mnist [--m 500 --g 20 --n 4 --deskew 1 --kernel lin|rbf]
       [--thr grid|range|quant|qrange --lo L --hi H --qrows R --qlo QL --qhi QH] [--group rand|grid --angles -20,0,20]

--thr: where the 2n+1 thresholds lie. grid: s*k/n on [-s, s] (the Go default);
range: equally spaced on [lo, hi]; quant: per template, the quantiles
(k+1)/(2n+2) of its projections over R unlabelled training rows (first 50k).
qrange: per template, evenly on its own [QL, QH] quantiles of the projections of R
unlabelled rows at every group element.
--group rand: g sampled rotations x sub-pixel shifts; grid: every integer
shift within +-shift times the listed angles (g is then ignored).
Round 3 (experiments/journal/invariant.md): --blur S (Gaussian blur of every image),
--pool hist (bin counts instead of running counts), --subs 'k:angles;...'
(extra CDF blocks over local subsets of the grid group, same templates),
--tcenter 0 (copies scaled to unit length but not centred), --tsrc diff|kmeans
(template sources other than single training images).
Probes 5-6: --window W masks each template source to a random W x W square in the central
20 x 20 pixels (local templates); --window-share F windows only the first F of them and
--window-center 1 centres each inside its window instead of centring its copies.
Probe 7: --sharpen A [--sharpen-sigma S] replaces every image (inputs and template sources) by its
unsharp mask x + A (x - blur_S(x)).
"""
import numpy as np, sys, time, argparse
from scipy.ndimage import affine_transform
from scipy.linalg import eigh
ap=argparse.ArgumentParser()
ap.add_argument('--data',default='data/mnist')
ap.add_argument('--m',type=int,default=500); ap.add_argument('--g',type=int,default=20)
ap.add_argument('--n',type=int,default=4); ap.add_argument('--s',type=float,default=1.0)
ap.add_argument('--deskew',type=int,default=0); ap.add_argument('--center',type=int,default=0)
ap.add_argument('--deg',type=float,default=20); ap.add_argument('--shift',type=float,default=3)
ap.add_argument('--map',default='inv'); ap.add_argument('--seed',type=int,default=0)
ap.add_argument('--kernel',default='lin')
ap.add_argument('--rbf-c',default='0.5,1,2'); ap.add_argument('--rbf-lambda',default='1e-2,1e-3,1e-4')  # --kernel rbf: widths (× median d²) and absolute λ (the kernel's diagonal is 1)
ap.add_argument('--thr',default='grid'); ap.add_argument('--lo',type=float,default=-0.3); ap.add_argument('--hi',type=float,default=0.8)
ap.add_argument('--qrows',type=int,default=2000)
ap.add_argument('--qlo',type=float,default=0.01); ap.add_argument('--qhi',type=float,default=0.99)  # --thr qrange: each template's own quantile range
ap.add_argument('--gostyle',type=int,default=0)  # 1: as invariant.NewFromData: centre and normalise the source, then transform (copies not renormalised)
ap.add_argument('--group',default='rand'); ap.add_argument('--angles',default='-20,-10,0,10,20')
ap.add_argument('--sigma',type=float,default=1.0)
ap.add_argument('--pool',default='cdf')  # cdf: counts <= each threshold; hist: counts between neighbouring thresholds (same span, other ridge norm); both: the two side by side
ap.add_argument('--subs',default='')  # with --group grid: extra CDF blocks over local subsets 'k:angles;k:angles' (|shift| <= k px, angles listed), same templates
ap.add_argument('--tcenter',type=int,default=1)  # 0: copies scaled to unit length but not centred
ap.add_argument('--tsrc',default='data')  # data: training images; diff: differences of two random training images; gausscov: Gaussian with the rows' covariance; kmeans: k-means centroids of 20000 unlabelled training images
ap.add_argument('--intercept',type=int,default=0)  # 1: also fit with an unpenalised intercept (dual only: the Gram centred over the training rows)
ap.add_argument('--window-share',type=float,default=1.0); ap.add_argument('--window-center',type=int,default=0)  # --window: share of templates windowed; 1: centre each windowed source inside its window and leave its copies uncentred
ap.add_argument('--window',type=int,default=0)  # >0: every template source masked to one random window x window square (local templates)
ap.add_argument('--blur',type=float,default=0)  # Gaussian blur (px) of every image, inputs and template sources alike
ap.add_argument('--sharpen',type=float,default=0); ap.add_argument('--sharpen-sigma',type=float,default=1.0)  # unsharp mask x + A(x - blur_sigma(x)) of every image
a=ap.parse_args()
D=a.data.rstrip('/')+'/'
def deskew(im):
    # shear upright (zero row/column covariance), centre of mass to the centre
    r,c=np.mgrid[:28,:28]; t=im.sum()
    if t==0: return im
    m0=(r*im).sum()/t; m1=(c*im).sum()/t
    v0=((r-m0)**2*im).sum()/t; c01=((r-m0)*(c-m1)*im).sum()/t
    A=np.array([[1,0],[c01/v0,1]]); ctr=np.array([13.5,13.5])
    return affine_transform(im,A,offset=np.array([m0,m1])-A@ctr,order=1)
X=np.fromfile(D+'train-images-idx3-ubyte',dtype=np.uint8,offset=16).reshape(-1,784).astype(np.float32)/255
Y=np.fromfile(D+'train-labels-idx1-ubyte',dtype=np.uint8,offset=8).astype(int)
if a.deskew:
    import os; cache='/tmp/rfstream-probe-deskewed.npy'  # a scratch cache, rebuilt when missing
    if os.path.exists(cache): X=np.load(cache)
    else: X=np.stack([deskew(x.reshape(28,28)).ravel() for x in X]).astype(np.float32); np.save(cache,X)
if a.blur>0:
    from scipy.ndimage import gaussian_filter
    X=np.stack([gaussian_filter(x.reshape(28,28),a.blur).ravel() for x in X]).astype(np.float32)
if a.sharpen>0:
    # the opposite of --blur: edges weigh more in every distance; the filter is isotropic, so it commutes with
    # the shifts and (up to interpolation) the rotations, and the group acts on sharpened images as on plain ones
    from scipy.ndimage import gaussian_filter
    X=np.stack([(x+a.sharpen*(x-gaussian_filter(x,a.sharpen_sigma))).ravel() for x in X.reshape(-1,28,28)]).astype(np.float32)
r1=np.random.default_rng(1)
tr=np.concatenate([r1.choice(np.where(Y[:50000]==c)[0],1000,replace=False) for c in range(10)])
va=np.arange(50000,54000)
def prep(x):
    x=x.copy()
    if a.center: x-=x.mean(1,keepdims=True)
    return x/np.linalg.norm(x,axis=1,keepdims=True)
rng=np.random.default_rng(a.seed)
Xall=prep(X[np.concatenate([tr,va])])
t0=time.time()
if a.map=='inv':
    if a.tsrc=='data': src=X[rng.choice(50000,a.m,replace=False)].reshape(-1,28,28)
    elif a.tsrc=='diff': src=(X[rng.choice(50000,a.m,replace=False)]-X[rng.choice(50000,a.m,replace=False)]).reshape(-1,28,28)
    elif a.tsrc=='gausscov':
        # zero-mean Gaussian with the covariance of the first 50k rows (labels unread): the smooth
        # counterpart of 'diff', whose differences have mean zero and covariance 2Σ
        w,V=eigh(np.cov(X[:50000].T.astype(np.float64)))
        src=((rng.standard_normal((a.m,784))*np.sqrt(np.maximum(w,0)))@V.T).astype(np.float32).reshape(-1,28,28)
    elif a.tsrc=='kmeans':
        from sklearn.cluster import MiniBatchKMeans
        km=MiniBatchKMeans(a.m,random_state=a.seed,n_init=1,batch_size=2048).fit(X[rng.choice(50000,20000,replace=False)])
        src=km.cluster_centers_.astype(np.float32).reshape(-1,28,28)
    if a.window>0:
        # local templates: each source keeps one random window x window square inside the central 20 x 20
        # pixels, where MNIST's digits lie (zero elsewhere), so after the group acts it asks about one part of
        # the digit, pooled over the same rotations and shifts
        W=a.window; assert 0<W<=20; msk=np.zeros_like(src)
        nw=int(round(a.window_share*len(src)))  # the first nw templates are windowed, the rest stay whole
        for j,(r0,c0) in enumerate(rng.integers(4,24-W+1,(nw,2))):
            msk[j,r0:r0+W,c0:c0+W]=1
            if a.window_center:  # centred inside the window, so the copies stay zero outside it
                w=src[j,r0:r0+W,c0:c0+W]; src[j,r0:r0+W,c0:c0+W]=w-w.mean()
        msk[nw:]=1
        src=src*msk
    if a.gostyle:
        src=src-src.mean((1,2),keepdims=True); src=src/np.linalg.norm(src.reshape(len(src),-1),axis=1)[:,None,None]
    if a.group=='grid':
        angs=[float(v) for v in a.angles.split(',')]; k=int(a.shift)
        els=[(np.deg2rad(t),dy,dx) for t in angs for dy in range(-k,k+1) for dx in range(-k,k+1)]
        ang=np.array([e[0] for e in els]); sh=np.array([[e[1],e[2]] for e in els],float)
    else:
        ang=np.deg2rad(rng.uniform(-a.deg,a.deg,a.g)); sh=rng.uniform(-a.shift,a.shift,(a.g,2))
    ng=len(ang)
    T=np.empty((a.m,ng,784),np.float32)
    c=np.array([13.5,13.5])
    for i in range(ng):
        R=np.array([[np.cos(ang[i]),-np.sin(ang[i])],[np.sin(ang[i]),np.cos(ang[i])]])
        off=c-R@(c+sh[i])
        for j in range(a.m):
            T[j,i]=affine_transform(src[j],R,offset=off,order=1).ravel()
    T=T.reshape(-1,784)
    # each transformed template is centred and scaled to unit length
    if not a.gostyle:
        if a.tcenter:
            if a.window>0 and a.window_center:  # windowed templates keep their own centring
                nwg=int(round(a.window_share*a.m))*ng; T[nwg:]-=T[nwg:].mean(1,keepdims=True)
            else: T-=T.mean(1,keepdims=True)
        T/=np.linalg.norm(T,axis=1,keepdims=True)+1e-12
    nb=2*a.n+1
    if a.thr=='grid': thr=np.tile(a.s*np.arange(-a.n,a.n+1)/a.n,(a.m,1))
    elif a.thr=='range': thr=np.tile(a.lo+(a.hi-a.lo)*np.arange(nb)/(nb-1),(a.m,1))
    elif a.thr=='qrange':
        # per template, evenly spaced on its own [q(qlo), q(qhi)] of the projections of R unlabelled
        # training rows at every group element: the fixed range's rule (1 % and 99 % over all templates)
        # applied to each template alone
        qx=prep(X[np.random.default_rng(a.seed+7).choice(50000,a.qrows,replace=False)])
        Pq=(qx@T.T).reshape(-1,a.m,ng).transpose(1,0,2).reshape(a.m,-1)
        ql,qh=np.quantile(Pq,[a.qlo,a.qhi],axis=1); del Pq
        print('per-template ranges: lower ends at their 10/50/90 %',np.round(np.quantile(ql,[0.1,0.5,0.9]),3),'upper ends',np.round(np.quantile(qh,[0.1,0.5,0.9]),3),flush=True)
        thr=ql[:,None]+(qh-ql)[:,None]*np.arange(nb)[None,:]/(nb-1)
    elif a.thr=='quant':
        # thresholds fixed from unlabelled training rows (labels unread), before any fit
        qx=prep(X[np.random.default_rng(a.seed+7).choice(50000,a.qrows,replace=False)])
        Pq=(qx@T.T).reshape(-1,a.m,ng).transpose(1,0,2).reshape(a.m,-1)
        thr=np.quantile(Pq,(np.arange(nb)+1)/(nb+1),axis=1).T; del Pq
    thr=np.sort(thr,1)
    print('thresholds (template 0):',np.round(thr[0],3),'|G|=%d'%ng,flush=True)
    # count projections <= each threshold: one global searchsorted over
    # per-template-offset thresholds, then a histogram and running sums
    off=10.0*np.arange(a.m)
    flat=(thr+off[:,None]).ravel()
    masks=[np.ones(ng,bool)]
    for sub in filter(None,a.subs.split(';')):
        kk,al=sub.split(':'); al=[np.deg2rad(float(v)) for v in al.split(',')]
        masks.append(np.array([max(abs(e[1]),abs(e[2]))<=int(kk) and any(abs(e[0]-v)<1e-9 for v in al) for e in els]))
        print('subset',sub,'has',masks[-1].sum(),'elements',flush=True)
    Zs=[]
    for mk in masks:
      Z=np.empty((len(Xall),a.m*nb),np.float32); ng=int(mk.sum())
      for b in range(0,len(Xall),500):
        P=(Xall[b:b+500]@T.T).reshape(-1,a.m,len(mk))[:,:,mk].astype(np.float64)+off[None,:,None]
        ci=np.searchsorted(flat,P.ravel(),side='left').reshape(P.shape)-(np.arange(a.m)*nb)[None,:,None]
        ci=np.clip(ci,0,nb)  # nb: above every threshold
        key=((np.arange(len(P))[:,None,None]*a.m+np.arange(a.m)[None,:,None])*(nb+1)+ci).ravel()
        h=np.bincount(key,minlength=len(P)*a.m*(nb+1)).reshape(len(P),a.m,nb+1)
        if a.pool=='cdf': Z[b:b+500]=np.cumsum(h[:,:,:nb],2).reshape(len(P),-1)/ng
        else: Z[b:b+500]=h[:,:,1:].reshape(len(P),-1)/ng
      Zs.append(Z)
    Z=np.concatenate(Zs,1) if len(Zs)>1 else Zs[0]; del Zs
    Z*=np.sqrt(1.0/(a.n*a.m*len(masks)))
elif a.map=='raw': Z=Xall
elif a.map=='fourier':
    W=rng.normal(0,1/a.sigma,(784,a.m)); bb=rng.uniform(0,2*np.pi,a.m)
    Z=np.sqrt(2/a.m)*np.cos(Xall@W+bb)
print('features',Z.shape,'%.1fs'%(time.time()-t0),flush=True)
Ztr,Zva=Z[:10000],Z[10000:]
Yt=-np.ones((10000,10)); Yt[np.arange(10000),Y[tr]]=1
from scipy.linalg import cho_factor, cho_solve
if Z.shape[1]<10000:
    Z64=Ztr.astype(np.float64); A=Z64.T@Z64; B=Z64.T@Yt; md=np.trace(A)/len(Ztr)
    def sol(rel):
        w=cho_solve(cho_factor(A+rel*md*len(Ztr)*np.eye(len(A))),B); return Zva.astype(np.float64)@w
else:
    K=np.zeros((10000,10000)); Kva=np.zeros((len(Zva),10000))
    for c0 in range(0,Z.shape[1],4000):
        A=Ztr[:,c0:c0+4000].astype(np.float64); K+=A@A.T; Kva+=Zva[:,c0:c0+4000].astype(np.float64)@A.T
    del A; md=np.trace(K)/len(K)
    def sol(rel):
        al=cho_solve(cho_factor(K+rel*md*len(K)*np.eye(len(K))),Yt); return Kva@al
best=None
for rel in [1e-6,3e-7,1e-7,3e-8,1e-8,1e-9]:
    try: err=(np.argmax(sol(rel),1)!=Y[va]).mean()
    except Exception as e: print("  rel",rel,e); continue
    print('  rel %.0e err %.2f%%'%(rel,100*err),flush=True)
    if best is None or err<best[1]: best=(rel,err)
print('RESULT',{k:v for k,v in vars(a).items()},'best rel %.0e val err %.2f%%'%(best[0],100*best[1]),'total %.0fs'%(time.time()-t0),flush=True)
if a.intercept and Z.shape[1]>=10000:
    # Kernel ridge with an unpenalised intercept: centre the Gram over the
    # training rows (and the held-out rows' kernel against the same means),
    # fit the centred targets, add their means back.
    colmean=K.mean(0); allmean=colmean.mean()
    Kc=K-colmean[None,:]-colmean[:,None]+allmean
    Kvac=Kva-colmean[None,:]-Kva.mean(1)[:,None]+allmean
    ym=Yt.mean(0); bi=None
    for rel in [1e-6,3e-7,1e-7,3e-8,1e-8,1e-9]:
        try: al=cho_solve(cho_factor(Kc+rel*md*len(K)*np.eye(len(K))),Yt-ym)
        except Exception as e: print("  intercept rel",rel,e); continue
        err=(np.argmax(Kvac@al+ym,1)!=Y[va]).mean()
        print('  intercept rel %.0e err %.2f%%'%(rel,100*err),flush=True)
        if bi is None or err<bi[1]: bi=(rel,err)
    print('RESULT-INTERCEPT best rel %.0e val err %.2f%%'%(bi[0],100*bi[1]),flush=True)
if a.kernel=='rbf':
    Zt32=Ztr.astype(np.float32); Zv32=Zva.astype(np.float32)
    K=(Zt32@Zt32.T).astype(np.float64); Kv=(Zv32@Zt32.T).astype(np.float64)
    sq=np.diag(K).copy(); sqv=(Zv32.astype(np.float64)**2).sum(1)
    d2=np.maximum(sq[:,None]+sq[None,:]-2*K,0); d2v=np.maximum(sqv[:,None]+sq[None,:]-2*Kv,0)
    med=np.median(d2[:1000,:1000])
    for sig in [float(v) for v in a.rbf_c.split(',')]:
        G=np.exp(-d2/(sig*med)); Gv=np.exp(-d2v/(sig*med))
        for lam in [float(v) for v in a.rbf_lambda.split(',')]:
            try: al=cho_solve(cho_factor(G+lam*np.eye(len(G))),Yt)
            except Exception as e: print('  RBF sigma %g*med lam %g: %s'%(sig,lam,e),flush=True); continue
            err=(np.argmax(Gv@al,1)!=Y[va]).mean()
            print('  RBF sigma %g*med lam %g err %.2f%%'%(sig,lam,100*err),flush=True)
    print('RBFDONE %.0fs'%(time.time()-t0),flush=True)

